/**
 * Attacks on file checkpoints and rewind (issue 35; docs/security.md, section 10): a rewind resolves paths and writes
 * files, and its attacker is the model's calls after an injection and the contents of a cloned repository — links
 * swapped between snapshot and restore, a `.gitignore` that hides them, `..` in a path, attributes that change what
 * a snapshot stores. Each case is a real attack on the real store, real git and real files.
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

function setup() {
  const root = temp('ckpt-attack-proj-');
  const outside = temp('ckpt-attack-outside-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/a.txt'), 'project a\n');
  fs.writeFileSync(path.join(root, 'src/b.txt'), 'project b\n');
  fs.writeFileSync(path.join(outside, 'a.txt'), 'outside a\n');
  fs.writeFileSync(path.join(outside, 'b.txt'), 'outside b\n');
  return { root, outside };
}

describe('rewind never writes out of the tracked folders', () => {
  it('a folder swapped for a link out of the project, hidden by a .gitignore, is not written through: counted and named', async () => {
    const { root, outside } = setup();
    const store = await CheckpointStore.open(temp('ckpt-attack-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'changed by the model\n');
    await store.checkpoint('m1', 1, 'later');
    // The injected calls: the folder becomes a link out, and the link is ignored so no snapshot records it.
    sh(root, `rm -r src && ln -s ${outside} src && echo src >> .gitignore`);
    const r = await store.rewind('m0');
    expect(fs.readFileSync(path.join(outside, 'a.txt'), 'utf8')).toBe('outside a\n');
    expect(fs.readFileSync(path.join(outside, 'b.txt'), 'utf8')).toBe('outside b\n');
    expect(r.skippedLinks).toBeGreaterThanOrEqual(2);
    expect(r.notRestorable?.some((l) => l.includes('src/a.txt') && l.includes('symbolic link'))).toBe(true);
  });

  it('a folder swapped for a link while the restore runs (after its check) is not written through', async () => {
    const { root, outside } = setup();
    fs.mkdirSync(path.join(root, 'z'));
    fs.writeFileSync(path.join(root, 'z/late.txt'), 'project late\n');
    fs.writeFileSync(path.join(outside, 'late.txt'), 'outside late\n');
    const store = await CheckpointStore.open(temp('ckpt-attack-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    sh(root, 'echo x > src/a.txt && echo y > z/late.txt');
    const r = await store.rewind('m0', {
      // A process still running from the session swaps the folder between two steps of the restore.
      afterStep: (n) => {
        if (n === 1) sh(root, `mv z z.real && ln -s ${outside} z`);
      },
    });
    expect(fs.readFileSync(path.join(outside, 'late.txt'), 'utf8')).toBe('outside late\n');
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('project a\n');
    expect(r.skippedLinks).toBe(1);
  });

  it('a link put at a file’s own name is replaced by the file, never written through', async () => {
    const { root, outside } = setup();
    const store = await CheckpointStore.open(temp('ckpt-attack-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    sh(root, `rm src/a.txt && ln -s ${outside}/a.txt src/a.txt`);
    const r = await store.rewind('m0');
    expect(r.canRewind).toBe(true);
    expect(fs.lstatSync(path.join(root, 'src/a.txt')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('project a\n');
    expect(fs.readFileSync(path.join(outside, 'a.txt'), 'utf8')).toBe('outside a\n');
  });

  it('a journal with a path out of the project (a crafted or damaged store) is not followed', async () => {
    const { root, outside } = setup();
    const dir = temp('ckpt-attack-store-');
    const store = await CheckpointStore.open(dir, [root]);
    await store.checkpoint('m0', 0, 'before');
    await store.seal();
    const gitDir = fs.readdirSync(dir).find((d) => fs.existsSync(path.join(dir, d, 'HEAD')))!;
    const oid = execFileSync('git', ['--git-dir', path.join(dir, gitDir), 'rev-parse', `${store.get('m0')!.roots[root]!.tree}:src/a.txt`]).toString().trim();
    const escape = path.relative(root, path.join(outside, 'b.txt'));
    fs.writeFileSync(path.join(dir, gitDir, 'restore-journal.json'), JSON.stringify({ root, to: 'x', steps: [{ path: escape, action: 'write', mode: '100644', oid }, { path: 'src/../../x', action: 'delete' }] }));
    await CheckpointStore.open(dir, [root]);
    expect(fs.readFileSync(path.join(outside, 'b.txt'), 'utf8')).toBe('outside b\n');
    expect(fs.existsSync(path.join(dir, gitDir, 'restore-journal.json'))).toBe(false);
  });
});

describe('a repository cannot change what a checkpoint holds', () => {
  it('.gitattributes asking for line-ending conversion does not change the bytes put back', async () => {
    const { root } = setup();
    fs.writeFileSync(path.join(root, '.gitattributes'), '* text eol=crlf\n*.txt text=auto\n');
    fs.writeFileSync(path.join(root, 'mixed.txt'), 'one\r\ntwo\nthree\r\n');
    fs.writeFileSync(path.join(root, 'unix.md'), 'a\nb\n');
    const store = await CheckpointStore.open(temp('ckpt-attack-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    fs.writeFileSync(path.join(root, 'mixed.txt'), 'gone');
    fs.writeFileSync(path.join(root, 'unix.md'), 'gone');
    await store.rewind('m0');
    expect(fs.readFileSync(path.join(root, 'mixed.txt'), 'latin1')).toBe('one\r\ntwo\nthree\r\n');
    expect(fs.readFileSync(path.join(root, 'unix.md'), 'latin1')).toBe('a\nb\n');
  });

  it("the project's own .git configuration is never read: its fsmonitor does not run", async () => {
    const { root } = setup();
    execFileSync('git', ['init', '-q'], { cwd: root });
    const marker = path.join(temp('ckpt-attack-mark-'), 'ran');
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; false`], { cwd: root });
    const store = await CheckpointStore.open(temp('ckpt-attack-store-'), [root]);
    await store.checkpoint('m0', 0, 'before');
    fs.writeFileSync(path.join(root, 'src/a.txt'), 'x');
    await store.rewind('m0');
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'src/a.txt'), 'utf8')).toBe('project a\n');
  });
});
