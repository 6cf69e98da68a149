/**
 * Red team on the checkpoint journal (docs/security.md, section 10: checkpoint-pack.ts, checkpoint-objects.ts). The
 * attacker writes the store's pack folder (another process of the user, a command run outside the sandbox): it plants
 * a dead writer's journal with a link where its sealing writes, or a FIFO where a journal or a pack index is read.
 * Sealing never writes through a link out of the store, and nothing planted there blocks the session forever.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/session/checkpoints.js';
import { BLANK_HEADER, journalName, objectHeader, TYPE_CODE } from '../../src/session/checkpoint-pack.js';
import { plainGitEnv, useTempDirs } from '../../src/session/test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();
const env = plainGitEnv();
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function project(): string {
  const root = temp('red-journal-proj-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'a at m0\n');
  return root;
}

const packDir = (dir: string) => path.join(dir, fs.readdirSync(dir).find((d) => /^[0-9a-f]{16}$/.test(d))!, 'objects', 'pack');

/** The id of a process that has exited (its journal is a dead writer's: the next store seals it). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}

/** A journal as a writer leaves it: the blank header, then one blob record. */
function journalBytes(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([BLANK_HEADER, objectHeader(TYPE_CODE.blob, body.length), deflateSync(body)]);
}

describe("a dead writer's journal planted with links where its sealing writes", () => {
  it('the pack and index being sealed are never written through a link planted at their temporary names', async () => {
    const root = project();
    const dir = temp('red-journal-store-');
    await CheckpointStore.open(dir, [root], {}, env);
    const pack = packDir(dir);
    const outside = temp('red-journal-outside-');
    const victims = ['pack', 'idx'].map((ext) => {
      const victim = path.join(outside, `victim.${ext}`);
      fs.writeFileSync(victim, 'precious\n');
      return victim;
    });
    const journal = path.join(pack, journalName(deadPid(), 'zz'));
    fs.writeFileSync(journal, journalBytes('planted by the attacker\n'));
    fs.symlinkSync(victims[0]!, `${journal}.seal.pack`);
    fs.symlinkSync(victims[1]!, `${journal}.seal.idx`);

    // The next store opening the folder seals the dead writer's journal.
    await CheckpointStore.open(dir, [root], {}, env);
    for (const victim of victims) expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.existsSync(journal)).toBe(false);
  });

  it("a crash's leftover pack being sealed (random name) is removed by the next store, a link there unlinked, not followed", async () => {
    const root = project();
    const dir = temp('red-journal-store-');
    await CheckpointStore.open(dir, [root], {}, env);
    const pack = packDir(dir);
    const victim = path.join(temp('red-journal-outside-'), 'victim');
    fs.writeFileSync(victim, 'precious\n');
    const left = path.join(pack, `${journalName(deadPid(), 'zw')}.seal0123456789abcdef`);
    fs.writeFileSync(`${left}.pack`, 'PACK half written');
    fs.symlinkSync(victim, `${left}.idx`);
    await CheckpointStore.open(dir, [root], {}, env);
    expect(fs.readdirSync(pack).filter((n) => n.includes('.seal'))).toEqual([]);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it("a dead writer's journal that is a link is not read through (nor sealed from its target's bytes)", async () => {
    const root = project();
    const dir = temp('red-journal-store-');
    await CheckpointStore.open(dir, [root], {}, env);
    const pack = packDir(dir);
    const outside = temp('red-journal-outside-');
    const target = path.join(outside, 'secret.pack');
    fs.writeFileSync(target, journalBytes('a secret of another folder\n'));
    const before = fs.readdirSync(pack).filter((n) => n.endsWith('.pack')).length;
    fs.symlinkSync(target, path.join(pack, journalName(deadPid(), 'zy')));

    await CheckpointStore.open(dir, [root], {}, env);
    expect(fs.readdirSync(pack).filter((n) => n.endsWith('.pack')).length).toBe(before);
    expect(fs.readFileSync(target).equals(journalBytes('a secret of another folder\n'))).toBe(true);
  });
});

describe('FIFOs planted in the pack folder', () => {
  // Run in a child: a read that blocks on a FIFO blocks the whole thread, and no test timeout could end it.
  it("a FIFO as a dead writer's journal and as a pack index: opening the store and a rewind finish", () => {
    const root = project();
    const dir = temp('red-journal-store-');
    const script = `
      import fs from 'node:fs';
      import { execFileSync } from 'node:child_process';
      import { CheckpointStore } from ${JSON.stringify(path.join(repoRoot, 'src/session/checkpoints.ts'))};
      const [dir, root] = process.argv.slice(-2);
      const env = JSON.parse(process.env.RED_ENV);
      let store = await CheckpointStore.open(dir, [root], {}, env);
      await store.checkpoint('m0', 0, 'm0');
      const pack = dir + '/' + fs.readdirSync(dir).find((d) => /^[0-9a-f]{16}$/.test(d)) + '/objects/pack';
      execFileSync('mkfifo', [pack + '/tmp_journal_' + process.env.RED_DEAD + '_zx']);
      const fake = 'pack-' + 'ab'.repeat(20);
      fs.writeFileSync(pack + '/' + fake + '.pack', 'PACK');
      execFileSync('mkfifo', [pack + '/' + fake + '.idx']);
      store = await CheckpointStore.open(dir, [root], {}, env);
      fs.writeFileSync(root + '/a.txt', 'changed\\n');
      const r = await store.rewind('m0');
      process.stdout.write(JSON.stringify({ error: r.error ?? null, text: fs.readFileSync(root + '/a.txt', 'utf8') }));
    `;
    const file = path.join(dir, '..', `${path.basename(dir)}-run.mts`);
    fs.writeFileSync(file, script);
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', file, dir, root], {
        cwd: repoRoot,
        env: { ...process.env, RED_ENV: JSON.stringify(env), RED_DEAD: String(deadPid()) },
        timeout: 90_000,
        encoding: 'utf8',
      });
      expect(r.signal, `blocked on a FIFO (stderr: ${r.stderr})`).toBeNull();
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ error: null, text: 'a at m0\n' });
    } finally {
      fs.rmSync(file, { force: true });
    }
  }, 180_000);
});

describe('a store inside a tracked folder, reached through a link', () => {
  it('is left out of every snapshot, and a rewind neither lists nor removes its files', async () => {
    const root = project();
    fs.mkdirSync(path.join(root, 'state'));
    // The session's folder named through a link (a home or /tmp behind a symlink), the project by its real path.
    const elsewhere = temp('red-journal-link-');
    fs.symlinkSync(path.join(root, 'state'), path.join(elsewhere, 'state'));
    const dir = path.join(elsewhere, 'state', 'session', 'checkpoints');
    const store = await CheckpointStore.open(dir, [root], {}, env);
    await store.checkpoint('m0', 0, 'm0');
    fs.writeFileSync(path.join(root, 'a.txt'), 'a at m1\n');
    await store.checkpoint('m1', 1, 'm1');
    await store.checkpoint('m2', 2, 'm2');
    const preview = await store.rewind('m0', { dryRun: true });
    expect(preview.filesChanged).toEqual([path.join(root, 'a.txt')]);
    const r = await store.rewind('m0');
    expect(r.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a at m0\n');
    expect(fs.existsSync(path.join(root, 'state', 'session', 'checkpoints', 'checkpoints.jsonl'))).toBe(true);
    expect((await CheckpointStore.open(dir, [root], {}, env)).list().map((c) => c.id)).toEqual(['m0', 'm1', 'm2']);
  });
});

describe("a store's journal changed, then sealed by another store of the same process on the same folder", () => {
  it('the store notices its objects are gone at its next seal and takes its files again: a later checkpoint rewinds', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, 'b.txt'), 'b at m0\n');
    const dir = temp('red-journal-store-');
    const a = await CheckpointStore.open(dir, [root], {}, env);
    await a.checkpoint('m0', 0, 'm0');
    const [journal] = fs.readdirSync(packDir(dir)).filter((n) => n.startsWith('tmp_journal_'));
    const file = path.join(packDir(dir), journal!);
    const bytes = fs.readFileSync(file);
    bytes[16] = bytes[16]! ^ 0x5a; // the first record's body: it and all after it are not vouched for
    fs.writeFileSync(file, bytes);
    // The same session resumed in the same process (two query() calls): its open seals this process's journals.
    await CheckpointStore.open(dir, [root], {}, env);
    expect(fs.existsSync(file)).toBe(false);
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed after m0\n');
    await expect(a.rewind('m0')).rejects.toThrow(/bad object/);
    // b.txt never changed: a store that still believed its blob stored would name it in m1 without writing it.
    fs.writeFileSync(path.join(root, 'a.txt'), 'a at m1\n');
    await a.checkpoint('m1', 1, 'm1');
    fs.writeFileSync(path.join(root, 'a.txt'), 'after m1\n');
    fs.writeFileSync(path.join(root, 'b.txt'), 'after m1\n');
    const r = await a.rewind('m1');
    expect(r.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a at m1\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b at m0\n');
  });
});
