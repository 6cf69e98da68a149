/**
 * Attacks on the stat data kept with the checkpoint store (issue 35; docs/security.md, section 10): a resumed session
 * takes a file by its logged stat data without reading it. Whatever changed between the two runs — a file rewritten
 * with the same size and modification time, a file or a folder swapped for a link, a log line planted or naming a
 * blob the store lacks — the resumed session's checkpoint must hold what is on disk now: the tree git writes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { racy } from '../../src/session/checkpoint-stat-log.js';
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
const sh = (cwd: string, script: string) => execFileSync('/bin/bash', ['-c', script], { cwd, encoding: 'utf8' });
const env: NodeJS.ProcessEnv = { ...process.env, HOME: os.tmpdir(), XDG_CONFIG_HOME: path.join(os.tmpdir(), 'no-such-config') };
for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];

function gitTree(root: string): string {
  const ref = temp('ckpt-log-ref-');
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', ref, '--work-tree', root, '-c', 'core.autocrlf=false', ...args], { cwd: root, encoding: 'utf8', env }).trim();
  git('init', '-q');
  git('add', '-A');
  return git('write-tree');
}

/** A project whose files were last modified long ago (not racy: their stat data is logged). */
function project(): string {
  const root = temp('ckpt-log-proj-');
  sh(root, 'mkdir -p sub deep/er && echo inside > sub/secret.txt && echo aaaa > a.txt && echo bbbb > deep/er/b.txt && touch -d "2001-01-01 00:00:00" a.txt sub/secret.txt deep/er/b.txt');
  return root;
}

/** One run of a session: the store opened on `storeDir`, one checkpoint, its tree. */
async function run(storeDir: string, root: string, id: string): Promise<string> {
  const store = await CheckpointStore.open(storeDir, [root], {}, env);
  return Object.values((await store.checkpoint(id, 0, id)).roots)[0]!.tree;
}

function logOf(storeDir: string): string {
  const gitDir = fs.readdirSync(storeDir).map((d) => path.join(storeDir, d)).find((d) => fs.existsSync(path.join(d, 'HEAD')))!;
  return path.join(gitDir, 'toolgate-stat.jsonl');
}

describe('a resumed session never takes a changed file by its logged stat data', () => {
  it('a file rewritten between two runs with the same size and modification time: the new bytes are checkpointed', async () => {
    const root = project();
    const storeDir = temp('ckpt-log-store-');
    expect(await run(storeDir, root, 'm0')).toBe(gitTree(root));
    expect(fs.readFileSync(logOf(storeDir), 'utf8')).toContain('a.txt');
    sh(root, 'echo AAAA > a.txt && touch -d "2001-01-01 00:00:00" a.txt');
    expect(await run(storeDir, root, 'm1')).toBe(gitTree(root));
  });

  it('a file, then a folder, swapped for links out of the project between runs: links recorded, the outside never read', async () => {
    const root = project();
    const outside = temp('ckpt-log-outside-');
    sh(outside, 'echo OUTSIDE-SECRET > secret.txt && mkdir er && echo OUTSIDE-B > er/b.txt && touch -d "2001-01-01 00:00:00" secret.txt er/b.txt');
    const storeDir = temp('ckpt-log-store-');
    await run(storeDir, root, 'm0');
    sh(root, `rm a.txt && ln -s ${outside}/secret.txt a.txt && rm -r deep && ln -s ${outside} deep`);
    expect(await run(storeDir, root, 'm1')).toBe(gitTree(root));
  });

  it('a file changed at its reading, its modification time set back: racy, so its stamp is neither logged nor trusted', () => {
    // Its change time is the only recent time. Where the kernel stamps it with a coarse clock (a jiffy), a second
    // rewrite in the same tick, its modification time set back again, keeps every field of the stamp: a stamp whose
    // change time falls within the margin of the reading proves the bytes no more than a recent mtime does. The
    // reading's clock is taken before the change, as a scan racing a writer would see it.
    const root = project();
    const file = path.join(root, 'a.txt');
    const at = Date.now();
    sh(root, 'echo AAAA > a.txt && touch -d "2001-01-01 00:00:00" a.txt');
    const stat = fs.statSync(file);
    expect(stat.mtimeMs).toBeLessThan(at - 1e9);
    expect(racy(stat, at)).toBe(true);
  });

  it('planted log lines (another stamp, a blob the store lacks, garbage) change nothing', async () => {
    const root = project();
    const storeDir = temp('ckpt-log-store-');
    await run(storeDir, root, 'm0');
    sh(root, 'echo cccc > a.txt && touch -d "2001-01-01 00:00:00" a.txt');
    const st = fs.lstatSync(path.join(root, 'a.txt'));
    const missing = 'f'.repeat(40);
    const planted = [
      // a.txt's stat data now, with a blob the store does not have
      JSON.stringify(['a.txt', missing, st.dev, st.ino, st.mode, st.size, st.mtimeMs, st.ctimeMs]),
      // sub/secret.txt with another size
      JSON.stringify(['sub/secret.txt', missing, st.dev, st.ino, st.mode, 99, st.mtimeMs, st.ctimeMs]),
      '{"not": "a fact"}',
      '["--output=/tmp/x", "zz", 1, 2, 3, 4, 5, 6]',
    ];
    fs.appendFileSync(logOf(storeDir), `${planted.join('\n')}\n`);
    expect(await run(storeDir, root, 'm1')).toBe(gitTree(root));
  });

  it('a pack index planted without its pack, naming a blob the store lacks: the file is read, not taken by its fact', async () => {
    const root = project();
    const storeDir = temp('ckpt-log-store-');
    await run(storeDir, root, 'm0');
    sh(root, 'echo dddd > a.txt && touch -d "2001-01-01 00:00:00" a.txt');
    // A real index (git's own pack-objects) of a blob with other bytes; its pack left behind.
    const other = temp('ckpt-log-other-');
    const git = (args: string[], input?: string) => execFileSync('git', ['--git-dir', other, ...args], { encoding: 'utf8', env, ...(input !== undefined ? { input } : {}) }).trim();
    git(['init', '-q', '--bare']);
    const evil = git(['hash-object', '-w', '--stdin'], 'EVIL\n');
    const pack = git(['pack-objects', path.join(other, 'pk')], `${evil}\n`);
    const gitDir = path.dirname(logOf(storeDir));
    fs.mkdirSync(path.join(gitDir, 'objects', 'pack'), { recursive: true });
    fs.copyFileSync(path.join(other, `pk-${pack}.idx`), path.join(gitDir, 'objects', 'pack', `pack-${pack}.idx`));
    const st = fs.lstatSync(path.join(root, 'a.txt'));
    fs.appendFileSync(logOf(storeDir), `${JSON.stringify(['a.txt', evil, st.dev, st.ino, st.mode, st.size, st.mtimeMs, st.ctimeMs])}\n`);
    expect(await run(storeDir, root, 'm1')).toBe(gitTree(root));
  });
});
