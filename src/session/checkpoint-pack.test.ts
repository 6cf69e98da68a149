import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { plainGitEnv, useTempDirs } from './test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();
const env = plainGitEnv();
const STORE_MODULE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'checkpoints.ts');

function project(): string {
  const root = temp('ckpt-journal-proj-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/a.txt'), 'a at m0\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'b at m0\n');
  return root;
}

const journals = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((d) => /^[0-9a-f]{16}$/.test(d))
    .flatMap((d) => fs.readdirSync(path.join(dir, d, 'objects', 'pack')).filter((n) => n.startsWith('tmp_journal_')).map((n) => path.join(dir, d, 'objects', 'pack', n)));

/** A process takes checkpoints m0 and m1 (between them: an edit, a new file), then is killed: its journal is left. */
function crashAfterCheckpoints(dir: string, root: string): void {
  const script = `
    import fs from 'node:fs';
    const { CheckpointStore } = await import(${JSON.stringify(STORE_MODULE)});
    const store = await CheckpointStore.open(${JSON.stringify(dir)}, [${JSON.stringify(root)}]);
    await store.checkpoint('m0', 0, 'm0');
    fs.writeFileSync(${JSON.stringify(path.join(root, 'src/a.txt'))}, 'a at m1\\n');
    fs.writeFileSync(${JSON.stringify(path.join(root, 'new.txt'))}, 'new at m1\\n');
    await store.checkpoint('m1', 1, 'm1');
    process.kill(process.pid, 'SIGKILL');
  `;
  const file = path.join(temp('ckpt-journal-child-'), 'child.mts');
  fs.writeFileSync(file, script);
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { env, encoding: 'utf8', cwd: path.dirname(path.dirname(path.dirname(STORE_MODULE))) });
  expect(r.signal, r.stderr).toBe('SIGKILL');
}

describe("a session's objects go to its journal, sealed into a pack before git reads them", () => {
  it('a process killed right after its checkpoints returned: the next store seals its journal, and both rewind byte-equal', async () => {
    const root = project();
    const dir = temp('ckpt-journal-store-');
    crashAfterCheckpoints(dir, root);
    // The checkpoints' objects were only appended to the journal (no pack yet): what the crash left.
    expect(journals(dir)).toHaveLength(1);
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'a after the crash\n');
    fs.rmSync(path.join(root, 'b.txt'));
    const store = await CheckpointStore.open(dir, [root], {}, env);
    expect(journals(dir)).toEqual([]);
    const m1 = await store.rewind('m1');
    expect(m1.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('a at m1\n');
    expect(fs.readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('new at m1\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b at m0\n');
    const m0 = await store.rewind('m0');
    expect(m0.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('a at m0\n');
    expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
    // What git reads is a whole pack.
    const gitDir = path.join(dir, fs.readdirSync(dir).find((d) => /^[0-9a-f]{16}$/.test(d))!);
    for (const idx of fs.readdirSync(path.join(gitDir, 'objects', 'pack')).filter((n) => n.endsWith('.idx'))) {
      expect(execFileSync('git', ['--git-dir', gitDir, 'verify-pack', '-v', path.join(gitDir, 'objects', 'pack', idx)], { encoding: 'utf8', env })).toMatch(/: ok\n?$/);
    }
  }, 60_000);

  it('two sessions in one process, one project: each store has its own journal, and each rewinds to its own checkpoints', async () => {
    const root = project();
    const [dirA, dirB] = [temp('ckpt-journal-a-'), temp('ckpt-journal-b-')];
    const a = await CheckpointStore.open(dirA, [root], {}, env);
    const b = await CheckpointStore.open(dirB, [root], {}, env);
    await a.checkpoint('a0', 0, 'a0');
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'written between a0 and b0\n');
    await b.checkpoint('b0', 0, 'b0');
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'written after b0\n');
    fs.writeFileSync(path.join(root, 'only-a1.txt'), 'a1\n');
    await a.checkpoint('a1', 1, 'a1');
    expect(journals(dirA)).toHaveLength(1);
    expect(journals(dirB)).toHaveLength(1);
    expect(b.get('a0')).toBeUndefined();
    expect((await b.rewind('a0')).canRewind).toBe(false);
    expect((await b.rewind('b0')).error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('written between a0 and b0\n');
    expect(fs.existsSync(path.join(root, 'only-a1.txt'))).toBe(false);
    expect((await a.rewind('a1')).error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'only-a1.txt'), 'utf8')).toBe('a1\n');
    expect((await a.rewind('a0')).error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('a at m0\n');
    // Both keep checkpointing after the other sealed (each rewind seals this process's journals of its store).
    fs.writeFileSync(path.join(root, 'b.txt'), 'b later\n');
    await b.checkpoint('b1', 1, 'b1');
    fs.writeFileSync(path.join(root, 'b.txt'), 'b even later\n');
    expect((await b.rewind('b1')).error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b later\n');
  }, 60_000);
});
