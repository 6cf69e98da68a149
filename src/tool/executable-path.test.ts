/** Which PATH entries count for the programs toolgate runs itself: never one the model could have written to. */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distrustProgramsIn, findExecutableOnPath } from './executable-path.js';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-exec-path-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An executable `tool` in `<dir>/<folder>`; returns the folder. */
function tool(folder: string): string {
  const d = path.join(dir, folder);
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, 'tool'), '#!/bin/sh\n');
  chmodSync(path.join(d, 'tool'), 0o755);
  return d;
}
const PATH = (...entries: string[]) => entries.join(path.delimiter);

describe('findExecutableOnPath', () => {
  it('takes the first trusted absolute entry', () => {
    const system = tool('usr/bin');
    expect(findExecutableOnPath('tool', PATH('relative/bin', system))).toBe(path.join(system, 'tool'));
    expect(findExecutableOnPath('tool', PATH('', 'relative'))).toBeUndefined();
  });

  it("skips an entry inside a folder the caller names, or its real path's (a symlinked entry into the project)", () => {
    const system = tool('usr/bin');
    const projectBin = tool('project/bin');
    symlinkSync(projectBin, path.join(dir, 'linked-bin'));
    const project = path.join(dir, 'project');
    expect(findExecutableOnPath('tool', PATH(projectBin, system))).toBe(path.join(projectBin, 'tool'));
    expect(findExecutableOnPath('tool', PATH(projectBin, system), [project])).toBe(path.join(system, 'tool'));
    expect(findExecutableOnPath('tool', PATH(path.join(dir, 'linked-bin'), system), [project])).toBe(path.join(system, 'tool'));
    expect(findExecutableOnPath('tool', PATH(projectBin), [project])).toBeUndefined();
  });

  it('skips a program that is a symlink into a refused folder, and any node_modules entry (npx puts the project’s first)', () => {
    const system = tool('usr/bin');
    const planted = tool('project/node_modules/.bin');
    expect(findExecutableOnPath('tool', PATH(planted, system))).toBe(path.join(system, 'tool'));
    const trusted = path.join(dir, 'opt', 'bin');
    mkdirSync(trusted, { recursive: true });
    symlinkSync(path.join(tool('project/tools'), 'tool'), path.join(trusted, 'tool'));
    expect(findExecutableOnPath('tool', PATH(trusted, system), [path.join(dir, 'project')])).toBe(path.join(system, 'tool'));
  });

  it('skips entries inside the folders registered as writable by sandboxed commands, for good', () => {
    const system = tool('usr/bin');
    const writable = tool('writable/bin');
    expect(findExecutableOnPath('tool', PATH(writable, system))).toBe(path.join(writable, 'tool'));
    distrustProgramsIn([path.join(dir, 'writable')]);
    expect(findExecutableOnPath('tool', PATH(writable, system))).toBe(path.join(system, 'tool'));
  });

  it("skips entries inside the process's working directory, unless that is the root", () => {
    const system = tool('usr/bin');
    const here = tool('cwd/bin');
    const saved = process.cwd();
    try {
      process.chdir(path.join(dir, 'cwd'));
      expect(findExecutableOnPath('tool', PATH(here, system))).toBe(path.join(system, 'tool'));
      process.chdir('/');
      expect(findExecutableOnPath('tool', PATH(here, system))).toBe(path.join(here, 'tool'));
    } finally {
      process.chdir(saved);
    }
  });
});
