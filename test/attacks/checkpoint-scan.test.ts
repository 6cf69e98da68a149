/**
 * Attacks on the in-process snapshot (issue 35; docs/security.md, section 10): the scan reads files a repository and
 * the model's commands control. A link at a tracked file's name, or a folder swapped for a link out of the project,
 * must never make a checkpoint read (and copy into the store) what lies outside the tracked folders.
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

/** Every blob's bytes in the store's shadow repository (what a checkpoint copied). */
function storedBytes(storeDir: string): string {
  const gitDir = fs.readdirSync(storeDir).map((d) => path.join(storeDir, d)).find((d) => fs.existsSync(path.join(d, 'HEAD')))!;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
  const ids = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'], { encoding: 'utf8', env })
    .split('\n')
    .filter((l) => l.endsWith(' blob'))
    .map((l) => l.split(' ')[0]!);
  return ids.map((id) => execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', id], { encoding: 'utf8', env })).join('\n');
}

describe('a checkpoint never reads out of the tracked folders', () => {
  it('a link at a tracked file’s name, then a folder swapped for a link: the outside secret is not in the store', async () => {
    const root = temp('ckpt-scan-attack-proj-');
    const outside = temp('ckpt-scan-attack-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'OUTSIDE-SECRET\n');
    sh(root, 'mkdir sub && echo inside > sub/secret.txt && echo a > a.txt');
    const storeDir = temp('ckpt-scan-attack-store-');
    const store = await CheckpointStore.open(storeDir, [root]);
    await store.checkpoint('m0', 0, 'before');
    // The injected calls: a tracked file becomes a link out; the next turn, a tracked folder does.
    sh(root, `rm a.txt && ln -s ${outside}/secret.txt a.txt`);
    await store.checkpoint('m1', 1, 'link at a file');
    sh(root, `rm -r sub && ln -s ${outside} sub`);
    await store.checkpoint('m2', 2, 'link at a folder');
    await store.seal();
    const stored = storedBytes(storeDir);
    expect(stored).toContain('inside');
    expect(stored).toContain(`${outside}/secret.txt`);
    expect(stored).not.toContain('OUTSIDE-SECRET');
  });
});
