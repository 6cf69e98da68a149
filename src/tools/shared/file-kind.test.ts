import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRegularFile, statOrNullSync } from './file-kind.js';
import { FileToolError } from './errors.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-file-kind-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('openRegularFile', () => {
  it('opens the file its stats describe, and refuses one swapped for another since the stat', async () => {
    const a = path.join(dir, 'a.txt');
    const b = path.join(dir, 'b.txt');
    fs.writeFileSync(a, 'a');
    fs.writeFileSync(b, 'b');
    const handle = await openRegularFile(a, statOrNullSync(a)!);
    await handle.close();
    // The stats were taken of another file (as if `a` had been replaced between the stat and the open).
    const swapped = openRegularFile(a, statOrNullSync(b)!);
    await expect(swapped).rejects.toBeInstanceOf(FileToolError);
    await expect(swapped).rejects.toMatchObject({ message: `${a} changed while it was being opened; try again.` });
  });
});

describe('statOrNullSync', () => {
  it('is null for a missing path and for one through a file (ENOTDIR), and the stats otherwise', () => {
    const file = path.join(dir, 'c.txt');
    fs.writeFileSync(file, 'c');
    expect(statOrNullSync(path.join(dir, 'missing'))).toBeNull();
    expect(statOrNullSync(path.join(file, 'inner'))).toBeNull();
    expect(statOrNullSync(file)?.isFile()).toBe(true);
  });
});
