/**
 * The red team's round on file checkpoints and rewind (docs/security.md, section 10): each case a real attack on the
 * real store, real git and real files, and each fails with its defence removed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../src/session/checkpoints.js';

const temps: string[] = [];
function temp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const sh = (cwd: string, script: string) => execFileSync('/bin/bash', ['-c', script], { cwd });

function project() {
  const root = temp('red-ckpt-proj-');
  fs.writeFileSync(path.join(root, 'a.txt'), 'project a\n');
  return root;
}

describe('a rewritten record cannot make git write outside the tracked folders', () => {
  it('a record whose tree is a diff-tree option (--output=…) is refused, nothing is written outside', async () => {
    const root = project();
    const outside = temp('red-ckpt-outside-');
    const dir = temp('red-ckpt-store-');
    const store = await CheckpointStore.open(dir, [root]);
    await store.checkpoint('m0', 0, 'before');
    // A command run outside the sandbox rewrites the store's record (the residue says: restored "still inside").
    const target = path.join(outside, 'planted');
    const line = JSON.stringify({ id: 'evil', at: 'x', index: 0, label: 'x', roots: { [root]: { tree: `--output=${target}`, skipped: [] } } });
    fs.appendFileSync(path.join(dir, 'checkpoints.jsonl'), `${line}\n`);
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    const reopened = await CheckpointStore.open(dir, [root]);
    await reopened.rewind('evil').catch(() => undefined);
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe('a rewind says what it leaves', () => {
  it('a file whose name holds a backslash, made since the checkpoint, is removed or named — never silently left', async () => {
    const root = project();
    const store = await CheckpointStore.open(temp('red-ckpt-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    sh(root, String.raw`printf 'payload\n' > 'run\me.sh' && echo x > a.txt`);
    const r = await store.rewind('m0');
    const named = [...(r.notRestorable ?? []), ...(r.filesChanged ?? [])].some((l) => l.includes('run\\me.sh'));
    expect(named).toBe(true);
  });
});

describe('a rewind does not widen a file’s permissions', () => {
  it('a private (0600) file whose content changed keeps its 0600 after the rewind', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=secret\n', { mode: 0o600 });
    fs.chmodSync(path.join(root, '.env'), 0o600);
    const store = await CheckpointStore.open(temp('red-ckpt-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    sh(root, "sed -i 's/secret/other/' .env");
    await store.rewind('m0');
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('TOKEN=secret\n');
    expect(fs.statSync(path.join(root, '.env')).mode & 0o777).toBe(0o600);
  });
});

describe('a planted special file cannot switch the rewind off', () => {
  it('a FIFO put at a tracked file’s name: the rewind still restores the files (and the file at that name)', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, 'b.txt'), 'project b\n');
    const store = await CheckpointStore.open(temp('red-ckpt-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    // The injected calls: the damage, then a FIFO where a tracked file was (git add refuses it).
    sh(root, 'echo hacked > a.txt && rm b.txt && mkfifo b.txt');
    const r = await store.rewind('m0');
    expect(r.canRewind).toBe(true);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('project a\n');
    expect(fs.lstatSync(path.join(root, 'b.txt')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('project b\n');
  });
});

describe('a resumed session with other folders', () => {
  it('a folder added after the checkpoint is named as not restored, never silently passed over', async () => {
    const root = project();
    const extra = temp('red-ckpt-extra-');
    fs.writeFileSync(path.join(extra, 'e.txt'), 'extra\n');
    const dir = temp('red-ckpt-store-');
    const store = await CheckpointStore.open(dir, [root]);
    await store.checkpoint('m0', 0, 'before');
    // The session is resumed with an added directory; the model changes a file there.
    const resumed = await CheckpointStore.open(dir, [root, extra]);
    fs.writeFileSync(path.join(extra, 'e.txt'), 'changed\n');
    const r = await resumed.rewind('m0');
    expect(fs.readFileSync(path.join(extra, 'e.txt'), 'utf8')).toBe('changed\n');
    expect(r.notRestorable?.some((l) => l.startsWith(extra))).toBe(true);
  });
});
