import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoints.js';
import { useTempDirs } from './test-helpers/checkpoint-fixtures.js';

const temp = useTempDirs();

/** Every file under `root` (links as `-> target`), by relative path: what "byte-equal" compares. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = path.relative(root, p);
      if (e.name === '.git') continue;
      if (e.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) {
        out[`${rel}/`] = '';
        walk(p);
      } else out[rel] = fs.readFileSync(p).toString('base64');
    }
  };
  walk(root);
  return out;
}

const sh = (cwd: string, script: string) => execFileSync('/bin/bash', ['-c', script], { cwd });

function project(): string {
  const root = temp('ckpt-proj-');
  fs.mkdirSync(path.join(root, 'src/lib'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/main.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(root, 'src/lib/util.ts'), 'export function f() { return "old"; }\n');
  fs.writeFileSync(path.join(root, 'bin.dat'), Buffer.from([0, 1, 2, 255, 254, 13, 10]));
  fs.writeFileSync(path.join(root, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'crlf.txt'), 'a\r\nb\r\n');
  fs.writeFileSync(path.join(root, '.gitattributes'), '* text eol=lf\n');
  fs.symlinkSync('src/main.ts', path.join(root, 'link'));
  return root;
}

describe('CheckpointStore', () => {
  it('edits, a sed -i, an rm -r and a new file, over three turns, rewound to each earlier turn byte-equal', async () => {
    const root = project();
    const store = await CheckpointStore.open(temp('ckpt-store-'), [root]);
    const states: Record<string, string>[] = [];
    const turns = [
      () => fs.writeFileSync(path.join(root, 'src/main.ts'), 'export const a = 2;\n'), // an Edit's write
      () => sh(root, "sed -i 's/old/new/' src/lib/util.ts && rm -r src/lib && echo made > fresh.txt && mkdir -p gen/deep && echo x > gen/deep/out.js"),
      () => sh(root, 'rm run.sh link && printf "c\\r\\n" >> crlf.txt && chmod 644 bin.dat && echo more >> fresh.txt'),
    ];
    for (const [i, turn] of turns.entries()) {
      states.push(tree(root));
      await store.checkpoint(`m${i}`, i, `turn ${i}`);
      turn();
    }
    const end = tree(root);
    for (let i = turns.length - 1; i >= 0; i--) {
      const dry = await store.rewind(`m${i}`, { dryRun: true });
      expect(dry.canRewind).toBe(true);
      expect(tree(root)).toEqual(i === turns.length - 1 ? end : states[i + 1]);
      const result = await store.rewind(`m${i}`);
      expect(result.canRewind).toBe(true);
      expect(tree(root)).toEqual(states[i]);
    }
    // and forward again: a rewind to the newest checkpoint after going back to the first
    await store.rewind('m2');
    expect(tree(root)).toEqual(states[2]);
  });

  it('says what a rewind changes: files added, changed and deleted since, and lines', async () => {
    const root = project();
    const store = await CheckpointStore.open(temp('ckpt-store-'), [root]);
    await store.checkpoint('m0', 0, 'first');
    sh(root, "sed -i 's/1/2/' src/main.ts && rm src/lib/util.ts && echo new > added.txt");
    const r = await store.rewind('m0', { dryRun: true });
    expect(r).toMatchObject({ canRewind: true, insertions: 2, deletions: 2 });
    expect(r.added).toEqual([path.join(root, 'added.txt')]);
    expect(r.changed).toEqual([path.join(root, 'src/main.ts')]);
    expect(r.deleted).toEqual([path.join(root, 'src/lib/util.ts')]);
    expect(r.skippedLinks).toBeUndefined();
    expect(fs.existsSync(path.join(root, 'added.txt'))).toBe(true);
  });

  it('keeps to .gitignore by default and names the files over the size limit instead of restoring them', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
    fs.mkdirSync(path.join(root, 'node_modules/x'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules/x/index.js'), 'one');
    fs.writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(2048, 1));
    const store = await CheckpointStore.open(temp('ckpt-store-'), [root], { maxFileBytes: 1024 });
    await store.checkpoint('m0', 0, 'first');
    fs.writeFileSync(path.join(root, 'node_modules/x/index.js'), 'two');
    fs.writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(4096, 2));
    const r = await store.rewind('m0');
    expect(fs.readFileSync(path.join(root, 'node_modules/x/index.js'), 'utf8')).toBe('two');
    expect(fs.readFileSync(path.join(root, 'big.bin')).length).toBe(4096);
    expect(r.notRestorable?.some((l) => l.startsWith(path.join(root, 'big.bin')) && l.includes('not checkpointed'))).toBe(true);

    const all = await CheckpointStore.open(temp('ckpt-store-'), [root], { respectGitignore: false });
    await all.checkpoint('m0', 0, 'first');
    fs.writeFileSync(path.join(root, 'node_modules/x/index.js'), 'three');
    await all.rewind('m0');
    expect(fs.readFileSync(path.join(root, 'node_modules/x/index.js'), 'utf8')).toBe('two');
  });

  it('a folder with more files than maxFiles (ignored ones not counted) is not checkpointed, and is not walked again', async () => {
    const root = project();
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    fs.mkdirSync(path.join(root, 'build'));
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root, 'build', `o${i}`), `${i}`);
    const fits = await CheckpointStore.open(temp('ckpt-store-'), [root], { maxFiles: 40 });
    await expect(fits.checkpoint('m0', 0, 'first')).resolves.toMatchObject({ id: 'm0' });
    fs.mkdirSync(path.join(root, 'gen'));
    for (let i = 0; i < 45; i++) fs.writeFileSync(path.join(root, 'gen', `f${i}.txt`), `${i}\n`);
    await expect(fits.checkpoint('m1', 1, 'second')).rejects.toThrow(/holds more than 40 files to checkpoint/);
    // Stopped: even with the folder small again, no walk (and no second copy of everything) is tried.
    fs.rmSync(path.join(root, 'gen'), { recursive: true });
    await expect(fits.checkpoint('m2', 2, 'third')).rejects.toThrow(/holds more than 40 files/);
    expect(fits.list().map((r) => r.id)).toEqual(['m0']);
  });

  it('a snapshot of many new files at once adds the whole folder, still leaving out the files over the limit', async () => {
    const root = project();
    fs.mkdirSync(path.join(root, 'gen'));
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, 'gen', `f${i}.txt`), `${i}\n`);
    fs.writeFileSync(path.join(root, 'gen/big.bin'), Buffer.alloc(2048, 1));
    const store = await CheckpointStore.open(temp('ckpt-store-'), [root], { maxFileBytes: 1024 });
    await store.checkpoint('m0', 0, 'first');
    sh(root, 'rm -r gen/f1*.txt && echo changed > gen/f0.txt && head -c 4096 /dev/zero > gen/big.bin');
    const r = await store.rewind('m0');
    expect(fs.readdirSync(path.join(root, 'gen')).length).toBe(301);
    expect(fs.readFileSync(path.join(root, 'gen/f0.txt'), 'utf8')).toBe('0\n');
    expect(fs.statSync(path.join(root, 'gen/big.bin')).size).toBe(4096);
    expect(r.notRestorable?.some((l) => l.includes('gen/big.bin'))).toBe(true);
  });

  it('tracks the added directories beside the project, and a store read back knows the earlier checkpoints', async () => {
    const root = project();
    const extra = temp('ckpt-extra-');
    fs.writeFileSync(path.join(extra, 'notes.md'), 'v1');
    const dir = temp('ckpt-store-');
    const store = await CheckpointStore.open(dir, [root, extra]);
    await store.checkpoint('m0', 0, 'first');
    fs.writeFileSync(path.join(extra, 'notes.md'), 'v2');
    fs.writeFileSync(path.join(root, 'src/main.ts'), 'changed');
    const again = await CheckpointStore.open(dir, [root, extra]);
    expect(again.list().map((r) => r.id)).toEqual(['m0']);
    const r = await again.rewind('m0');
    expect(r.filesChanged?.sort()).toEqual([path.join(extra, 'notes.md'), path.join(root, 'src/main.ts')].sort());
    expect(fs.readFileSync(path.join(extra, 'notes.md'), 'utf8')).toBe('v1');
  });

  it('two sessions on one project in one process keep their own checkpoints', async () => {
    const root = project();
    const a = await CheckpointStore.open(temp('ckpt-a-'), [root]);
    const b = await CheckpointStore.open(temp('ckpt-b-'), [root]);
    await Promise.all([a.checkpoint('a0', 0, 'a'), b.checkpoint('b0', 0, 'b')]);
    fs.writeFileSync(path.join(root, 'src/main.ts'), 'after a0');
    const before = tree(root);
    await Promise.all([a.checkpoint('a1', 1, 'a'), b.checkpoint('b1', 1, 'b'), a.snapshot(), b.snapshot()]);
    fs.writeFileSync(path.join(root, 'src/main.ts'), 'later');
    expect(await a.rewind('b0')).toEqual({ canRewind: false, error: 'No file checkpoint for message b0' });
    expect((await b.rewind('b1')).canRewind).toBe(true);
    expect(tree(root)).toEqual(before);
    await a.rewind('a0');
    expect(fs.readFileSync(path.join(root, 'src/main.ts'), 'utf8')).toBe('export const a = 1;\n');
  });

  it('a restore cut short is finished when the store is opened again', async () => {
    const root = project();
    const dir = temp('ckpt-store-');
    const store = await CheckpointStore.open(dir, [root]);
    const before = tree(root);
    await store.checkpoint('m0', 0, 'first');
    sh(root, 'for i in 1 2 3 4 5; do echo $i > src/f$i.ts; done; echo x > src/main.ts; rm -r src/lib');
    await expect(store.rewind('m0', { afterStep: (n) => {
      if (n === 3) throw new Error('crash');
    } })).rejects.toThrow('crash');
    expect(tree(root)).not.toEqual(before);
    await CheckpointStore.open(dir, [root]);
    expect(tree(root)).toEqual(before);
  });
});
