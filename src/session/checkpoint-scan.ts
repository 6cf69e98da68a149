/**
 * The incremental snapshot of one tracked folder (issue 35, checkpoints.ts): what git's index does, in this process.
 * Each file's stat data (size, mtime, ctime, inode) is kept from the last snapshot; the next one walks the folders
 * (readdir + lstat, never following a link), hashes only the files whose stat data changed, writes their blobs and the
 * trees of the folders on their way straight into the shadow object store (loose objects, git's format), and so costs
 * no process at all when no new path appeared. New paths are asked of git once per folder depth (`check-ignore
 * --no-index`: the folders' `.gitignore` files, the user's global ignore file, the store's `info/exclude`), through the
 * one hardened runner; a changed `.gitignore` makes every path left out before a new path again.
 *
 * A file is read through a descriptor opened without following a link and checked to be the regular file the walk saw;
 * a folder is read only when it is a folder, and its listing kept only when it is still the same folder after.
 * A file changed within the clock tick of its reading ("racily clean", as git calls it) is hashed again next time.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { gitResult } from '../tool/git-runner.js';

type Mode = '100644' | '100755' | '120000';

interface FileEntry {
  readonly mode: Mode;
  readonly oid: string;
  readonly stamp: Stamp;
  /** Changed in the tick it was read: not trusted by its stat data next time. */
  readonly racy: boolean;
}

interface DirEntry {
  readonly ino: number;
  /** Names below it that are tracked (files) or walked (folders). */
  readonly names: Set<string>;
}

export interface ScanSettings {
  readonly maxFileBytes: number;
  readonly respectGitignore: boolean;
  /** A path (relative, `/`-separated) never part of a snapshot: the store itself when it sits in the folder. */
  readonly excluded?: string;
}

export interface ScanResult {
  readonly tree: string;
  readonly skipped: readonly string[];
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

export class FolderScan {
  readonly #files = new Map<string, FileEntry>();
  readonly #dirs = new Map<string, DirEntry>();
  /** Paths git left out (ignored): not walked, not asked again until a `.gitignore` changes. */
  readonly #ignored = new Set<string>();
  /** Paths present but not in the snapshot (too big, nested repositories, not regular, unreadable) → why. */
  readonly #skipped = new Map<string, { readonly stamp: Stamp; readonly why: string }>();
  readonly #trees = new Map<string, string>();
  readonly #written = new Set<string>();
  /** Left-out paths seen in this snapshot (the others are gone). */
  readonly #seen = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly gitDir: string,
    private readonly settings: ScanSettings,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The folder's tree now, its blobs and trees written; what was left out named. */
  async snapshot(): Promise<ScanResult> {
    const dirty = new Set<string>();
    let rulesChanged = false;
    this.#seen.clear();
    const touched = (rel: string) => {
      if (path.posix.basename(rel) === '.gitignore') rulesChanged = true;
      for (let d = parentOf(rel); ; d = parentOf(d)) {
        dirty.add(d);
        if (d === '') break;
      }
    };
    for (let pass = 0; pass < 2; pass++) {
      let fresh: string[] = [];
      this.#walk('', fresh, touched);
      // New paths, one folder depth at a time: git says which are left out, the others are taken (folders walked).
      while (fresh.length > 0) {
        const ignored = await this.#ignoredOf(fresh);
        const deeper: string[] = [];
        for (const rel of fresh) {
          if (ignored.has(rel)) this.#ignored.add(rel);
          else this.#take(rel, deeper, touched);
        }
        fresh = deeper;
      }
      // A `.gitignore` changed: what the rules left out may be in now, and is looked at again (once).
      if (!rulesChanged || this.#ignored.size === 0) break;
      this.#ignored.clear();
      rulesChanged = false;
    }
    for (const rel of this.#skipped.keys()) if (!this.#seen.has(rel)) this.#skipped.delete(rel);
    const tree = this.#treeOf('', dirty);
    return { tree, skipped: [...this.#skipped.values()].map((s) => s.why) };
  }

  /** Walks a known folder: gone entries dropped, changed ones hashed again, new names collected in `fresh`. */
  #walk(dir: string, fresh: string[], touched: (rel: string) => void): void {
    const known = this.#dirs.get(dir);
    const listing = known ? this.#list(dir, known.ino) : undefined;
    if (!known || !listing || (dir !== '' && listing.nested)) {
      // Gone, swapped, or a nested repository now: out of the snapshot (a nested one is named when taken again).
      if (known && dir !== '') {
        this.#forget(dir, touched);
        this.#dirs.get(parentOf(dir))?.names.delete(path.posix.basename(dir));
        if (listing) fresh.push(dir);
      }
      return;
    }
    for (const name of known.names) {
      if (listing.names.has(name)) continue;
      this.#forget(join(dir, name), touched);
      known.names.delete(name);
    }
    for (const name of listing.names) {
      const rel = join(dir, name);
      if (this.#ignored.has(rel)) continue;
      if (!known.names.has(name)) {
        if (!this.#unchangedSkip(rel)) fresh.push(rel);
        continue;
      }
      const stat = lstat(this.root, rel);
      if (this.#dirs.has(rel)) {
        if (isDir(stat)) this.#walk(rel, fresh, touched);
        else {
          // A folder that is a file or a link now: a new path, which the ignore rules may leave out (as git does).
          this.#forget(rel, touched);
          known.names.delete(name);
          fresh.push(rel);
        }
        continue;
      }
      const entry = this.#files.get(rel);
      if (entry && stat && !entry.racy && sameStamp(stat, entry.stamp)) continue;
      // Changed (or now of another kind): a tracked path stays tracked, whatever the ignore rules say now.
      this.#forget(rel, touched);
      known.names.delete(name);
      this.#take(rel, fresh, touched);
    }
  }

  /** A new path (not left out): a folder is walked from now on, a file hashed, anything else named. */
  #take(rel: string, deeper: string[], touched: (rel: string) => void): void {
    const stat = lstat(this.root, rel);
    if (!stat) return;
    const parent = this.#dirs.get(parentOf(rel));
    if (!parent) return;
    const name = path.posix.basename(rel);
    if (stat.isDirectory()) {
      const listing = this.#list(rel, stat.ino);
      if (!listing) return;
      if (listing.nested) return this.#skip(rel, stat, `${rel}/ (a nested repository)`);
      this.#dirs.set(rel, { ino: stat.ino, names: new Set() });
      parent.names.add(name);
      for (const child of listing.names) deeper.push(join(rel, child));
      return;
    }
    if (!stat.isFile() && !stat.isSymbolicLink()) return this.#skip(rel, stat, `${rel} (not a regular file)`);
    if (stat.isFile() && stat.size > this.settings.maxFileBytes) return this.#skip(rel, stat, `${rel} (${stat.size} bytes, over the ${this.settings.maxFileBytes}-byte limit)`);
    const read = this.#read(rel, stat);
    if (!read) return this.#skip(rel, stat, `${rel} (not readable)`);
    const mode: Mode = stat.isSymbolicLink() ? '120000' : stat.mode & 0o100 ? '100755' : '100644';
    const oid = this.#write('blob', read.bytes);
    this.#files.set(rel, { mode, oid, stamp: stampOf(read.stat), racy: read.stat.mtimeMs >= read.at - 1 });
    parent.names.add(name);
    touched(rel);
  }

  /** A file's bytes (a link's target), and its stat data when read; undefined when it is no longer what was seen. */
  #read(rel: string, seen: fs.Stats): { bytes: Buffer; stat: fs.Stats; at: number } | undefined {
    const file = path.join(this.root, rel);
    const at = Date.now();
    try {
      if (seen.isSymbolicLink()) {
        const bytes = fs.readlinkSync(file, { encoding: 'buffer' });
        const after = fs.lstatSync(file);
        return after.ino === seen.ino && after.isSymbolicLink() ? { bytes, stat: after, at } : undefined;
      }
      const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || stat.ino !== seen.ino || stat.size > this.settings.maxFileBytes) return undefined;
        return { bytes: fs.readFileSync(fd), stat, at };
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  #skip(rel: string, stat: fs.Stats, why: string): void {
    this.#skipped.set(rel, { stamp: stampOf(stat), why });
    this.#seen.add(rel);
  }

  /** A path left out last time (too big, …) and unchanged since: left out again without a look. */
  #unchangedSkip(rel: string): boolean {
    const skipped = this.#skipped.get(rel);
    if (!skipped) return false;
    const stat = lstat(this.root, rel);
    if (stat && sameStamp(stat, skipped.stamp)) return this.#seen.add(rel), true;
    this.#skipped.delete(rel);
    return false;
  }

  /** A path gone from the snapshot (a file, or a folder and all below it). */
  #forget(rel: string, touched: (rel: string) => void): void {
    this.#skipped.delete(rel);
    if (this.#files.delete(rel)) touched(rel);
    const dir = this.#dirs.get(rel);
    if (!dir) return;
    for (const name of dir.names) this.#forget(join(rel, name), touched);
    this.#dirs.delete(rel);
    this.#trees.delete(rel);
    touched(rel);
  }

  /** A folder's names, when it is still the folder `ino` (not a link swapped in); `.git` and the store left out. */
  #list(rel: string, ino: number): { names: Set<string>; nested: boolean } | undefined {
    try {
      const all = fs.readdirSync(path.join(this.root, rel));
      if (lstat(this.root, rel)?.ino !== ino) return undefined;
      const names = new Set<string>();
      for (const name of all) if (name !== '.git' && join(rel, name) !== this.settings.excluded) names.add(name);
      return { names, nested: names.size !== all.length && all.includes('.git') };
    } catch {
      return undefined;
    }
  }

  /** Which of `paths` the ignore rules leave out (none when they are not respected). */
  async #ignoredOf(paths: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!this.settings.respectGitignore) return out;
    const r = await gitResult(['check-ignore', '-z', '--stdin', '--no-index'], { cwd: this.root, gitDir: this.gitDir, env: this.env, input: `${paths.join('\0')}\0`, maxBuffer: 256 * 1024 * 1024, timeoutMs: 30 * 60_000 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`git check-ignore failed: ${r.stderr.trim().split('\n')[0] ?? r.status}`);
    for (const p of r.stdout.split('\0')) if (p) out.add(p);
    return out;
  }

  /** The tree of `dir`, written again only when something below it changed (`dirty`). */
  #treeOf(dir: string, dirty: Set<string>): string {
    const cached = this.#trees.get(dir);
    if (cached && !dirty.has(dir)) return cached;
    const entries: { name: string; mode: string; oid: string; sortKey: string }[] = [];
    for (const name of this.#dirs.get(dir)?.names ?? []) {
      const rel = join(dir, name);
      const file = this.#files.get(rel);
      if (file) entries.push({ name, mode: file.mode, oid: file.oid, sortKey: name });
      else if (this.#dirs.has(rel)) {
        const oid = this.#treeOf(rel, dirty);
        // An empty folder is not in a tree (git records files, not folders).
        if (oid !== EMPTY_TREE) entries.push({ name, mode: '40000', oid, sortKey: `${name}/` });
      }
    }
    // git orders a tree's entries by name bytes, a folder's name as if it ended with `/`.
    entries.sort((a, b) => Buffer.compare(Buffer.from(a.sortKey), Buffer.from(b.sortKey)));
    const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')]));
    const oid = this.#write('tree', body);
    this.#trees.set(dir, oid);
    return oid;
  }

  /** A loose object in the store (git's format: zlib of `type size\0body`), named by its SHA-1; written once. */
  #write(type: 'blob' | 'tree', body: Buffer): string {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const oid = createHash('sha1').update(object).digest('hex');
    if (this.#written.has(oid)) return oid;
    const dir = path.join(this.gitDir, 'objects', oid.slice(0, 2));
    const file = path.join(dir, oid.slice(2));
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dir, { recursive: true });
      const temp = path.join(dir, `tmp_${process.pid}_${oid.slice(2, 10)}`);
      fs.writeFileSync(temp, deflateSync(object, { level: 1 }), { mode: 0o444 });
      fs.renameSync(temp, file);
    }
    // Only trees are remembered: blobs are many, and each is asked for once per change.
    if (type === 'tree') this.#written.add(oid);
    return oid;
  }

  /** The scan starts over (nothing known): the next snapshot walks and hashes everything. */
  static fresh(root: string, gitDir: string, settings: ScanSettings, env: NodeJS.ProcessEnv): FolderScan {
    const scan = new FolderScan(root, gitDir, settings, env);
    const stat = fs.lstatSync(root);
    scan.#dirs.set('', { ino: stat.ino, names: new Set() });
    return scan;
  }
}

function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
}

function lstat(root: string, rel: string): fs.Stats | undefined {
  // `rel` is a joined name from a listing (no `..`, no `//`): plain concatenation, path.join costs on 10,000 files.
  try {
    return fs.lstatSync(rel === '' ? root : `${root}/${rel}`, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isDir(stat: fs.Stats | undefined): boolean {
  return stat?.isDirectory() === true;
}

/** What says a file is unchanged: size, modification and change times (below the microsecond), inode, mode. */
interface Stamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
}

function stampOf(stat: fs.Stats): Stamp {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, mode: stat.mode };
}

function sameStamp(stat: fs.Stats, stamp: Stamp): boolean {
  return stat.mtimeMs === stamp.mtimeMs && stat.ctimeMs === stamp.ctimeMs && stat.size === stamp.size && stat.ino === stamp.ino && stat.mode === stamp.mode;
}
