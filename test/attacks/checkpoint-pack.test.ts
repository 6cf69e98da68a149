/**
 * Attacks on the checkpoint store's objects (docs/security.md, section 10: checkpoint-objects.ts, checkpoint-pack.ts):
 * someone with write access to the store — its journal or its packs — cuts or changes them. A rewind that needs what
 * was cut or changed is refused and leaves the files as they are; it never writes bytes that are not the checkpoint's.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/session/checkpoints.js';
import { indexOf, objectHeader, TYPE_CODE } from '../../src/session/checkpoint-pack.js';
import { plainGitEnv, useTempDirs } from '../../src/session/test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();
const env = plainGitEnv();

function project(): string {
  const root = temp('ckpt-pack-attack-proj-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/a.txt'), 'a at m0\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'b at m0\n');
  return root;
}

const shadowOf = (dir: string) => path.join(dir, fs.readdirSync(dir).find((d) => /^[0-9a-f]{16}$/.test(d))!);
const packDir = (dir: string) => path.join(shadowOf(dir), 'objects', 'pack');
const git = (gitDir: string, args: string[], input?: string) => execFileSync('git', ['--git-dir', gitDir, ...args], { env, ...(input !== undefined ? { input } : {}) });

describe('a store whose objects were changed behind its back', () => {
  it('a sealed pack forged to give a blob other bytes under its id: the rewind is refused, nothing written', async () => {
    const root = project();
    const dir = temp('ckpt-pack-attack-store-');
    const store = await CheckpointStore.open(dir, [root], {}, env);
    const m0 = await store.checkpoint('m0', 0, 'm0');
    await store.seal();
    const gitDir = shadowOf(dir);
    const target = git(gitDir, ['rev-parse', `${m0.roots[root]!.tree}:src/a.txt`]).toString().trim();
    // Every object of the store, rewritten into one pack whose index names the forged bytes with the real blob's id.
    const all = git(gitDir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'])
      .toString()
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, 'blob' | 'tree']);
    const chunks: Buffer[] = [Buffer.from('PACK\0\0\0\x02\0\0\0\0', 'latin1')];
    const entries = [];
    let at = 12;
    for (const [oid, type] of all) {
      const body = oid === target ? Buffer.from('EVIL!!!\n') : git(gitDir, ['cat-file', type, oid]);
      const record = Buffer.concat([objectHeader(TYPE_CODE[type], body.length), deflateSync(body)]);
      entries.push({ oid: Buffer.from(oid, 'hex'), offset: at, crc: 0 });
      chunks.push(record);
      at += record.length;
    }
    const pack = Buffer.concat(chunks);
    pack.writeUInt32BE(entries.length, 8);
    const sum = createHash('sha1').update(pack).digest();
    for (const n of fs.readdirSync(packDir(dir))) fs.rmSync(path.join(packDir(dir), n), { force: true });
    fs.writeFileSync(path.join(packDir(dir), `pack-${sum.toString('hex')}.pack`), Buffer.concat([pack, sum]));
    fs.writeFileSync(path.join(packDir(dir), `pack-${sum.toString('hex')}.idx`), indexOf(entries, sum));
    // git itself hands the forged bytes out under the real id (it does not hash what it reads).
    expect(git(gitDir, ['cat-file', 'blob', target]).toString()).toBe('EVIL!!!\n');

    fs.writeFileSync(path.join(root, 'src/a.txt'), 'changed after m0\n');
    const r = await store.rewind('m0');
    expect(r.canRewind).toBe(false);
    expect(r.error).toMatch(/src\/a\.txt: its content is missing from the checkpoint store, or damaged there/);
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('changed after m0\n');
  });

  it("the session's own journal with a byte changed: the changed object and what follows are not vouched for, the rewind refused", async () => {
    const root = project();
    const dir = temp('ckpt-pack-attack-store-');
    const store = await CheckpointStore.open(dir, [root], {}, env);
    await store.checkpoint('m0', 0, 'm0');
    const [journal] = fs.readdirSync(packDir(dir)).filter((n) => n.startsWith('tmp_journal_'));
    expect(journal).toBeDefined();
    const file = path.join(packDir(dir), journal!);
    const bytes = fs.readFileSync(file);
    // The first record (a blob): a byte of its compressed body changed.
    bytes[16] = bytes[16]! ^ 0x5a;
    fs.writeFileSync(file, bytes);
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'changed after m0\n');
    fs.rmSync(path.join(root, 'b.txt'));
    // The journal is sealed up to the changed record: m0's tree (after it) is not in the store, git says so.
    await expect(store.rewind('m0')).rejects.toThrow(/bad object/);
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('changed after m0\n');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
  });

  it('a journal cut short (a crash mid-append, or an attacker): what is whole is sealed and restorable, the rest refused', async () => {
    const root = project();
    const dir = temp('ckpt-pack-attack-store-');
    const store = await CheckpointStore.open(dir, [root], {}, env);
    await store.checkpoint('m0', 0, 'm0');
    const [journal] = fs.readdirSync(packDir(dir)).filter((n) => n.startsWith('tmp_journal_'));
    const file = path.join(packDir(dir), journal!);
    const whole = fs.statSync(file).size;
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'a at m1\n');
    await store.checkpoint('m1', 1, 'm1');
    // m1's objects (a blob, two trees) appended after m0's: the last one cut in its middle.
    fs.truncateSync(file, fs.statSync(file).size - 3);
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'changed after m1\n');
    await expect(store.rewind('m1')).rejects.toThrow(/bad object/);
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('changed after m1\n');
    // m0's objects came before the cut: sealed, and restored byte-equal.
    expect(whole).toBeGreaterThan(12);
    const r = await store.rewind('m0');
    expect(r.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('a at m0\n');
  });
});
