/**
 * Where a repository's submodules are, by git's own knowledge rather than by what is on disk: the gitlinks of its
 * index (what `git status` looks into; the `path`s of its `.gitmodules` when the index cannot be read). A submodule that was never initialised
 * (a clone without `--recursive`) is an empty folder with no `.git` to protect; `git status` outside the sandbox looks
 * into every gitlink's folder as soon as it has one, under that `.git`'s configuration — so sandbox-protected-paths.ts keeps
 * `<submodule>/.git` read-only whether or not it exists yet. Knowing them from the index also keeps them protected
 * when the look through the folders stops short.
 *
 * The index is read directly (format versions 2 to 4, SHA-1 or SHA-256, a split index's shared part too), and
 * remembered by its identity and times: it is re-read only when it changed.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readSmall } from './sandbox-git-config.js';

/** Larger indexes are not read (about two million entries); the caller treats their submodules as unknown. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;
const RACY_MS = 2_000;
const GITLINK = 0o160000;
const VALID_MODES = new Set([0o100644, 0o100755, 0o120000, GITLINK, 0o040000]);

const cache = new Map<string, { key: string; links: readonly string[] }>();

function varint(buf: Buffer, at: number): [value: number, next: number] | undefined {
  let i = at;
  if (i >= buf.length) return undefined;
  let c = buf[i++]!;
  let value = c & 127;
  while (c & 128) {
    if (i >= buf.length || value > 2 ** 40) return undefined;
    c = buf[i++]!;
    value = (value + 1) * 128 + (c & 127);
  }
  return [value, i];
}

/** The gitlink paths of an index's entries read with `hashLength`, or undefined when they do not parse that way. */
function entries(buf: Buffer, version: number, count: number, hashLength: number): { links: string[]; end: number } | undefined {
  const links: string[] = [];
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = at;
    let p = start + 40 + hashLength;
    if (p + 2 > buf.length) return undefined;
    const mode = buf.readUInt32BE(start + 24);
    const flags = buf.readUInt16BE(p);
    p += 2;
    if (flags & 0x4000) {
      if (version < 3) return undefined;
      p += 2;
    }
    let name: Buffer;
    if (version === 4) {
      const strip = varint(buf, p);
      if (strip === undefined || strip[0] > previous.length) return undefined;
      const nul = buf.indexOf(0, strip[1]);
      if (nul < 0) return undefined;
      name = Buffer.concat([previous.subarray(0, previous.length - strip[0]), buf.subarray(strip[1], nul)]);
      at = nul + 1;
    } else {
      const nul = buf.indexOf(0, p);
      if (nul < 0) return undefined;
      name = buf.subarray(p, nul);
      // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
      at = start + ((p - start + name.length + 8) & ~7);
      if (at > buf.length) return undefined;
    }
    const length = flags & 0xfff;
    if (!VALID_MODES.has(mode) || (length !== 0xfff && length !== name.length)) return undefined;
    // A split index names an entry that replaces one of its shared index by position, with an empty name: a gitlink
    // there has a path this reader does not know (it would need the replace bitmap), so the index counts as unread.
    if (mode === GITLINK && name.length === 0) return undefined;
    if (mode === GITLINK) links.push(name.toString('utf8'));
    previous = name;
  }
  return { links, end: at };
}

/** The shared index a split index names (its `link` extension), if any. */
function sharedIndexName(buf: Buffer, end: number, hashLength: number): string | undefined {
  let at = end;
  while (at + 8 <= buf.length - hashLength) {
    const signature = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32BE(at + 4);
    if (signature === 'link' && size >= hashLength) return `sharedindex.${buf.toString('hex', at + 8, at + 8 + hashLength)}`;
    at += 8 + size;
  }
  return undefined;
}

/** The gitlinks of an index file's content; undefined when it is not an index this code can read. */
export function gitlinksOfIndex(buf: Buffer): { links: string[]; sharedIndex?: string } | undefined {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  for (const hashLength of [20, 32]) {
    const parsed = entries(buf, version, count, hashLength);
    if (parsed === undefined || parsed.end > buf.length - hashLength) continue;
    const shared = sharedIndexName(buf, parsed.end, hashLength);
    return shared === undefined ? { links: parsed.links } : { links: parsed.links, sharedIndex: shared };
  }
  return undefined;
}

/** The gitlinks of `<gitDir>/<name>`, remembered while the file is unchanged; undefined when it cannot be read. */
function indexGitlinks(file: string): readonly string[] | undefined {
  let st;
  try {
    st = statSync(file);
  } catch {
    return []; // no index: no gitlinks
  }
  if (!st.isFile() || st.size > MAX_INDEX_BYTES) return undefined;
  const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const known = cache.get(file);
  if (known !== undefined && known.key === key) return known.links;
  let parsed;
  try {
    parsed = gitlinksOfIndex(readFileSync(file));
  } catch {
    return undefined;
  }
  if (parsed === undefined) return undefined;
  let links: readonly string[] = parsed.links;
  if (parsed.sharedIndex !== undefined) {
    const shared = indexGitlinks(path.join(path.dirname(file), parsed.sharedIndex));
    if (shared === undefined) return undefined;
    // A split index's own entries replace some of the shared ones: the union over-protects, never under-protects.
    links = [...new Set([...links, ...shared])];
  }
  // Written in the same clock tick as a change could be: not remembered until it has been quiet for a while.
  if (Math.max(st.mtimeMs, st.ctimeMs) < Date.now() - RACY_MS) cache.set(file, { key, links });
  return links;
}

/** `path = …` of each `[submodule "…"]` section of a `.gitmodules` file. */
function gitmodulesPaths(file: string): string[] {
  const text = readSmall(file);
  if (text === undefined) return [];
  const out: string[] = [];
  let inSubmodule = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) inSubmodule = header[1]!.toLowerCase() === 'submodule';
    const m = inSubmodule ? /^path\s*=\s*(.+?)\s*$/i.exec(line.replace(/^\[[^\]]*\]/, '').trim()) : null;
    if (m) out.push(m[1]!.replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

/**
 * The submodule folders of the worktree whose git directory is `gitDir` (absolute paths inside the worktree): the
 * index's gitlinks, or — when the index cannot be read (`unknown` says so) — the paths `.gitmodules` lists.
 */
export function submoduleFolders(gitDir: string, worktree: string): { folders: string[]; unknown?: string } {
  const links = indexGitlinks(path.join(gitDir, 'index'));
  const folders = new Set<string>();
  for (const rel of links ?? gitmodulesPaths(path.join(worktree, '.gitmodules'))) {
    const abs = path.resolve(worktree, rel);
    if (abs !== worktree && abs.startsWith(worktree + path.sep)) folders.add(abs);
  }
  return links === undefined ? { folders: [...folders], unknown: `the index of ${gitDir} could not be read` } : { folders: [...folders] };
}

/** Forgets the indexes read (tests). */
export function forgetIndexes(): void {
  cache.clear();
}
