/**
 * What a git configuration names that git outside the sandbox would load or run: hooks folders, included files,
 * programs (`core.fsmonitor`, filters, aliases, …). sandbox-protected-paths.ts keeps what lies inside the writable
 * folders read-only. git follows `include.path` and `includeIf.*.path` to any depth (ten levels), each relative to the
 * file that names it, so the files are followed here the same way — every `includeIf` whatever its condition (a
 * condition such as `onbranch:` can become true later). A committed `.gitconfig` that the person includes may itself
 * include another project file: that one is as much the configuration as the first.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const MAX_CONFIG_BYTES = 1024 * 1024;
/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;
/** Files read for one repository at most (a bound on a configuration that includes many files). */
const MAX_CONFIG_FILES = 64;

/**
 * Configuration keys whose value names a program or a file git loads (matched lower-case; `.*` for a subsection).
 * `always`: the path is protected even when nothing is there yet (git would load what a command puts there).
 */
const CONFIG_PATH_KEYS: readonly { readonly key: RegExp; readonly always?: boolean; readonly folder?: boolean; readonly include?: boolean }[] = [
  { key: /^core\.hookspath$/, always: true, folder: true },
  { key: /^(include|includeif\..*)\.path$/, always: true, include: true },
  { key: /^core\.(fsmonitor|pager|editor|sshcommand|askpass)$/ },
  { key: /^sequence\.editor$/ },
  { key: /^diff\.external$/ },
  { key: /^diff\..*\.(command|textconv)$/ },
  { key: /^filter\..*\.(clean|smudge|process)$/ },
  { key: /^merge\..*\.driver$/ },
  { key: /^credential(\..*)?\.helper$/ },
  { key: /^gpg(\..*)?\.program$/ },
  { key: /^alias\..*$/ },
  { key: /^pager\..*$/ },
  { key: /^(difftool|mergetool)\..*\.(cmd|path)$/ },
  { key: /^uploadpack\.packobjectshook$/ },
];

// Synchronous on purpose, like the walk: a handful of small reads per look, each cheaper than a trip through the
// thread pool (which, on a loaded machine, costs milliseconds per call).
function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

export function readSmall(file: string): string | undefined {
  try {
    const s = statSync(file);
    if (!s.isFile() || s.size > MAX_CONFIG_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

interface Named {
  readonly path: string;
  /** An included configuration file (git reads it as configuration). */
  readonly include: boolean;
}

function namedIn(file: string, worktree: string, home: string): Named[] {
  const text = readSmall(file);
  if (text === undefined) return [];
  const out: Named[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      section = `${header[1]!.toLowerCase()}${header[2] !== undefined ? `.${header[2]}` : ''}`;
      line = line.slice(header[0].length).trim();
      if (line === '') continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || m[2] === undefined) continue;
    const key = `${section}.${m[1]!.toLowerCase()}`;
    const spec = CONFIG_PATH_KEYS.find((k) => k.key.test(key));
    if (spec === undefined) continue;
    const value = m[2].replace(/\s[#;].*$/, '');
    // A hooks folder or an included file is a path whatever it looks like (`hooksPath = hooks`); in a command, only
    // a word that looks like one (`less -R` names no file).
    const pathValued = spec.folder === true || spec.include === true;
    for (const word of pathValued ? [value.trim().replace(/^"(.*)"$/, '$1')] : value.split(/[\s'"]+/)) {
      const w = word.replace(/^!/, '');
      if (w === '' || (!pathValued && (!/[/.]/.test(w) || /^[a-z][a-z0-9+.-]*:/i.test(w)))) continue;
      const expanded = w === '~' ? home : w.startsWith('~/') ? path.join(home, w.slice(2)) : w;
      // Commands are relative to the worktree; an include to the file that names it.
      const abs = path.resolve(spec.include === true ? path.dirname(file) : worktree, expanded);
      // A program or an include is a file (`git add .` in an alias names the worktree, not a program); the hooks
      // setting names a folder.
      const st = lstatOrUndefined(abs);
      const wanted = spec.folder === true ? st === undefined || st.isDirectory() : st === undefined ? spec.always === true : !st.isDirectory();
      if (wanted) out.push({ path: abs, include: spec.include === true });
    }
  }
  return out;
}

/**
 * Paths one git configuration file names through keys that run programs or load files: every word of such a value
 * that looks like a path, resolved as git would (relative to the worktree for commands, to the file's folder for
 * `include.path`; `~/` is home). A program path counts only when something is there; a hooks folder or an include
 * counts either way.
 */
export function namedByConfig(file: string, worktree: string, home: string): string[] {
  return namedIn(file, worktree, home).map((n) => n.path);
}

/**
 * `namedByConfig` over `files` and every file they include, to git's depth. `complete` is false when the bound on
 * files read was reached (what lies beyond is unknown).
 */
export function namedByConfigs(files: readonly string[], worktree: string, home: string): { named: string[]; complete: boolean } {
  const named: string[] = [];
  const read = new Set<string>();
  let level = [...files];
  for (let depth = 0; depth <= MAX_INCLUDE_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const file of level) {
      if (read.has(file)) continue;
      if (read.size >= MAX_CONFIG_FILES) return { named, complete: false };
      read.add(file);
      for (const n of namedIn(file, worktree, home)) {
        named.push(n.path);
        if (n.include) next.push(n.path);
      }
    }
    level = next;
  }
  return { named, complete: true };
}
