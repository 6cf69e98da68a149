/**
 * What a kept PATH hides. A PATH an earlier command left (a venv's, `export PATH=…`) may put folders in front of the
 * runtime's; a program found there instead of the runtime's runs whenever anything starts it by name — not only when
 * the command names it: `egrep` is `exec grep -E`, `xargs` with no command runs `echo`, `npm` is
 * `#!/usr/bin/env node`. The review (state-review.ts) asks for a command whose own programs change, follows one
 * `#!/usr/bin/env <interpreter>` line, and fails closed for what it cannot follow: while a folder the session's
 * commands can write (the working directories, the session's temp folder, the sandbox's extra write folders) hides
 * a program of the runtime's PATH on the kept PATH, every command asks. A virtual environment's `python3` included:
 * it is the system's interpreter, but it reads the venv's site-packages, whose `.pth` files run code at start, and
 * its file may be replaced by anything (the folder is writable); the engine cannot know which programs start it.
 *
 * Each added folder is listed once and again whenever it changes (its modification time, change time or inode): a
 * file planted in it after the PATH was kept counts from the next command on. Every name counts, executable or not (a
 * `chmod +x` later does not touch the folder).
 */
import { readdirSync, readSync, openSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside, realLocation } from '../../permissions/bash/paths.js';
import { findProgram } from './state-policy.js';

interface FolderScan {
  readonly stamp: string;
  /** Names in the folder that the runtime's PATH has too → the folder of the runtime's PATH where it is found. */
  readonly onBase: ReadonlyMap<string, string>;
  readonly real: string;
}

const EMPTY: FolderScan = { stamp: '', onBase: new Map(), real: '' };
const scans = new Map<string, FolderScan>();
const MAX_SCANS = 64;

function scanFolder(dir: string, basePath: string, cwd: string): FolderScan {
  let stamp: string;
  try {
    const st = statSync(dir);
    stamp = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  } catch {
    return EMPTY;
  }
  const key = `${dir}\0${basePath}`;
  const hit = scans.get(key);
  if (hit?.stamp === stamp) return hit;
  const onBase = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // unreadable: nothing found in it can be run either
  }
  for (const name of names) {
    const found = findProgram(name, basePath, cwd);
    if (found !== undefined) onBase.set(name, path.dirname(found));
  }
  const scan: FolderScan = { stamp, onBase, real: realLocation(dir) };
  if (scans.size >= MAX_SCANS) scans.delete(scans.keys().next().value as string);
  scans.set(key, scan);
  return scan;
}

export interface Shadows {
  /** Program name → the file of the kept PATH's folder that hides the runtime's. */
  readonly hidden: ReadonlyMap<string, string>;
  /** The first hidden program that fails the review closed (one in a folder the session's commands can write). */
  readonly failClosed?: { readonly name: string; readonly file: string; readonly hides: string };
}

const NO_SHADOWS: Shadows = { hidden: new Map() };

/**
 * What the kept PATH `now` hides of the runtime's `base`: the names in its added folders (not on `base`) that come
 * before the runtime folder holding the same name. `writable`: the folders the session's commands can write.
 */
export function pathShadows(now: string, base: string, cwd: string, writable: readonly string[]): Shadows {
  const entries = now.split(':');
  const baseEntries = new Set(base.split(':'));
  const hidden = new Map<string, string>();
  let failClosed: Shadows['failClosed'];
  for (let i = 0; i < entries.length; i++) {
    const dir = entries[i]!;
    if (baseEntries.has(dir) || !path.isAbsolute(dir) || entries.indexOf(dir) !== i) continue;
    const scan = scanFolder(dir, base, cwd);
    if (scan.onBase.size === 0) continue;
    const inWritable = isInside(dir, writable) || isInside(scan.real, writable);
    for (const [name, baseDir] of scan.onBase) {
      const at = entries.indexOf(baseDir);
      if (at !== -1 && at < i) continue;
      if (hidden.has(name)) continue;
      const file = path.join(dir, name);
      hidden.set(name, file);
      if (failClosed === undefined && inWritable) failClosed = { name, file, hides: path.join(baseDir, name) };
    }
  }
  return hidden.size === 0 ? NO_SHADOWS : { hidden, ...(failClosed ? { failClosed } : {}) };
}

interface Interpreter {
  readonly stamp: string;
  readonly name: string | undefined;
}
const interpreters = new Map<string, Interpreter>();
const MAX_INTERPRETERS = 512;

/** The program a script's `#!/usr/bin/env [-S] [NAME=value…] <program>` line starts by name; undefined otherwise. */
export function envInterpreter(file: string): string | undefined {
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.size}`;
  } catch {
    return undefined;
  }
  const hit = interpreters.get(file);
  if (hit?.stamp === stamp) return hit.name;
  let head = '';
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.toString('latin1', 0, readSync(fd, buffer, 0, 256, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    // unreadable: not run as a script by this user either
  }
  const line = head.startsWith('#!') ? head.slice(2).split('\n')[0]!.trim() : '';
  const words = line.split(/\s+/);
  let name: string | undefined;
  if (words[0] !== undefined && path.basename(words[0]) === 'env') {
    name = words.slice(1).find((w) => w !== '' && !w.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  }
  if (interpreters.size >= MAX_INTERPRETERS) interpreters.delete(interpreters.keys().next().value as string);
  interpreters.set(file, { stamp, name });
  return name;
}
