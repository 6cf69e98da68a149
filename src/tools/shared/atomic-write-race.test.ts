import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteFile, cleanStaleTempFiles } from './atomic-write.js';

let root: string;
let project: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-race-')));
  project = path.join(root, 'project');
  outside = path.join(root, 'outside');
  mkdirSync(path.join(project, 'sub'), { recursive: true });
  mkdirSync(outside);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('check-then-write race', () => {
  it('a folder flipped between a real directory and a link to outside never gets a file or temp file outside', async () => {
    const sub = path.join(project, 'sub');
    const real = path.join(project, 'sub.real');
    let flips = 0;
    let stop = false;
    // While `hold` is set the flipper parks with `sub` a real folder; `held` says it has parked.
    let hold = false;
    let held = false;
    // The attacker: flips `sub` between the real folder and a link to `outside`, as fast as the loop allows.
    const flipper = (async () => {
      while (!stop) {
        if (hold) {
          held = true;
          await new Promise((r) => setImmediate(r));
          continue;
        }
        held = false;
        try {
          renameSync(sub, real);
          symlinkSync(outside, sub);
          await new Promise((r) => setImmediate(r));
          unlinkSync(sub);
          renameSync(real, sub);
          flips++;
        } catch {
          // a step lost a race with itself; the next round restores the state
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    let written = 0;
    let refused = 0;
    let attempts = 0;
    let heldWrites = 0;
    for (let i = 0; i < 300; i++, attempts++) {
      // Every 20th write happens with the flipper parked: a stable real folder must be written (the defence does not
      // simply refuse everything). The others race it; on a loaded machine the flipper may win all of those, which
      // proves nothing either way, so only the parked writes are required to succeed.
      const parked = i % 20 === 0;
      if (parked) {
        hold = true;
        while (!held) await new Promise((r) => setImmediate(r));
      } else {
        // A random number of turns first: two deterministic loops can lock into a phase where every write meets the link.
        for (let t = Math.floor(Math.random() * 3); t > 0; t--) await new Promise((r) => setImmediate(r));
      }
      try {
        await atomicWriteFile(path.join(sub, `f${i}.txt`), `content ${i}\n`, { fsync: false, confineTo: [project] });
        written++;
        if (parked) heldWrites++;
      } catch {
        refused++;
      }
      if (parked) {
        hold = false;
        held = false;
      }
    }
    stop = true;
    await flipper;
    expect(readdirSync(outside)).toEqual([]);
    expect(flips).toBeGreaterThan(10);
    expect(written + refused).toBe(attempts);
    expect(heldWrites).toBe(15);
    // Every write that reported success is in the real folder, none lost.
    expect(readdirSync(sub).filter((n) => n.endsWith('.txt')).length).toBe(written);
  });

  it('refuses a folder that resolves outside the confinement, writing nothing', async () => {
    symlinkSync(outside, path.join(project, 'link'));
    await expect(atomicWriteFile(path.join(project, 'link', 'x.txt'), 'x', { confineTo: [project] })).rejects.toThrow(/Refused to write/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('temp files of dead processes', () => {
  it('are removed on the next write in their folder and by cleanStaleTempFiles; live ones stay', async () => {
    const dead = 2 ** 22 + 12345; // above pid_max's default: no such process
    const stale = path.join(project, `.a.txt.${dead}.0123456789ab.tmp`);
    const live = path.join(project, `.b.txt.${process.pid}.0123456789ab.tmp`);
    writeFileSync(stale, 'partial');
    writeFileSync(live, 'in progress');
    await atomicWriteFile(path.join(project, 'a.txt'), 'done', { fsync: false });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    const other = path.join(outside, `.c.txt.${dead}.0123456789ab.tmp`);
    writeFileSync(other, 'partial');
    expect(cleanStaleTempFiles([outside])).toBe(1);
    expect(existsSync(other)).toBe(false);
  });
});
