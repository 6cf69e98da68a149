/**
 * The incremental snapshot of one tracked folder (issue 35, checkpoints.ts): what git's index does, in this process.
 * Each file's stat data (size, mtime, ctime, inode, mode) is kept from the last snapshot; the next one walks the folders
 * (readdir + lstat, never following a link), hashes only the files whose stat data changed, writes their blobs and the
 * trees of the folders on their way straight into the shadow object store (appended to its journal, git's pack
 * format: checkpoint-objects.ts), and so costs
 * no process at all when no new path appeared. New paths are asked of git once per folder depth (`check-ignore
 * --no-index`: the folders' `.gitignore` files, the user's global ignore file, the store's `info/exclude`), through the
 * one hardened runner; a changed `.gitignore` makes every path left out before a new path again.
 *
 * A file is read through a descriptor opened without following a link and checked to be the regular file the walk saw;
 * a folder is read only when it is a folder, and its listing kept only when it is still the same folder after.
 * A file changed within the clock tick of its reading ("racily clean", as git calls it) is hashed again next time.
 *
 * The per-file cost is one `lstat` (the floor of a stat scan) and a map lookup: what was seen is a tree of nodes (no
 * path-keyed maps, no path built for a file that did not change), gone names found by a mark of the walk's pass.
 * The stat data is kept with the store too (checkpoint-stat-log.ts): a resumed session's first snapshot takes a file
 * whose stat data is exactly the one logged with its logged blob, without reading it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gitResult } from '../tool/git-runner.js';
import { CheckpointObjects } from './checkpoint-objects.js';
import { racy as racilyClean, stampOf, StatLog } from './checkpoint-stat-log.js';
import { PARALLEL_MIN, rowIsFolder, sameRow, statFolder, statFolders, type Listing } from './checkpoint-stat-pool.js';
import { clearIgnored, facts, join, lstatOf, parentOf, touched, type DirNode, type FileNode, type Mode, type Node, type SkipNode } from './checkpoint-scan-tree.js';


export interface ScanSettings {
  readonly maxFileBytes: number;
  /** More files than this in the folder: the scan stops (`TooManyFilesError`) — a checkpoint would copy them all. */
  readonly maxFiles: number;
  readonly respectGitignore: boolean;
  /** A path (relative, `/`-separated) never part of a snapshot: the store itself when it sits in the folder. */
  readonly excluded?: string;
}

export interface ScanResult {
  readonly tree: string;
  readonly skipped: readonly string[];
}

/** A new path found by the walk: asked of the ignore rules, then taken. */
interface Fresh {
  readonly dir: DirNode;
  readonly name: string;
  readonly rel: string;
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
/** Files a first snapshot reads between two yields to the event loop. */
const TAKE_CHUNK = 256;

/** A folder with more files than `maxFiles`: no snapshot of it is taken (the session's checkpoints stop). */
export class TooManyFilesError extends Error {
  constructor(root: string, max: number) {
    super(`${root} holds more than ${max.toLocaleString('en-US')} files to checkpoint (the checkpoints' maxFiles; ignored files do not count)`);
    this.name = 'TooManyFilesError';
  }
}

export class FolderScan {
  readonly #root: DirNode;
  readonly #skipped = new Set<SkipNode>();
  readonly #objects: CheckpointObjects;
  /** The excluded path's folder and name (checked only in that folder). */
  readonly #excludedIn: string | undefined;
  readonly #excludedName: string | undefined;
  readonly #log: StatLog;
  #pass = 0;
  #files = 0;
  #ignoredCount = 0;
  #rulesChanged = false;

  private constructor(
    root: DirNode,
    private readonly gitDir: string,
    private readonly settings: ScanSettings,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.#root = root;
    this.#log = StatLog.open(gitDir);
    this.#objects = new CheckpointObjects(gitDir);
    if (settings.excluded !== undefined) {
      this.#excludedIn = parentOf(settings.excluded);
      this.#excludedName = path.posix.basename(settings.excluded);
    }
  }

  /** The folder's tree now, its blobs and trees written; what was left out named. */
  async snapshot(): Promise<ScanResult> {
    try {
      return await this.#snapshot();
    } finally {
      // The snapshot's objects are appended to the store's journal before a record can name them.
      this.#objects.end();
    }
  }

  /** The objects written so far made a pack git reads; false: the store lost some behind its back (start over). */
  seal(): boolean {
    return this.#objects.seal();
  }

  async #snapshot(): Promise<ScanResult> {
    this.#rulesChanged = false;
    for (let round = 0; round < 2; round++) {
      let fresh: Fresh[] = [];
      this.#pass++;
      this.#walk(this.#root, fresh, round === 0 ? await this.#statKnown() : new Map());
      // New paths, one folder depth at a time: git says which are left out, the others are taken (folders walked).
      let taken = 0;
      while (fresh.length > 0) {
        const ignored = await this.#ignoredOf(fresh.map((f) => f.rel));
        const deeper: Fresh[] = [];
        for (const f of fresh) {
          if (!ignored.has(f.rel)) {
            this.#take(f.dir, f.name, deeper);
            // A first snapshot reads every file: the session's event loop gets a turn between chunks of them.
            if (++taken % TAKE_CHUNK === 0) await new Promise<void>((resolve) => setImmediate(resolve));
          } else {
            (f.dir.ignored ??= new Set()).add(f.name);
            this.#ignoredCount++;
          }
        }
        fresh = deeper;
      }
      // A `.gitignore` changed: what the rules left out may be in now, and is looked at again (once).
      if (!this.#rulesChanged || this.#ignoredCount === 0) break;
      clearIgnored(this.#root);
      this.#ignoredCount = 0;
      this.#rulesChanged = false;
    }
    const tree = this.#treeOf(this.#root);
    this.#log.flush(this.#files, () => facts(this.#root));
    return { tree, skipped: [...this.#skipped].map((s) => s.why) };
  }

  /**
   * The known folders listed and their names `lstat`ed (checkpoint-stat-pool.ts: shared with a worker thread on a big
   * project); a folder made since is listed by the walk.
   */
  async #statKnown(): Promise<Map<DirNode, Listing | undefined>> {
    const listed = new Map<DirNode, Listing | undefined>();
    if (this.#files < PARALLEL_MIN) return listed;
    const dirs: DirNode[] = [];
    const collect = (d: DirNode) => {
      dirs.push(d);
      for (const c of d.children.values()) if (c.kind === 'dir') collect(c);
    };
    collect(this.#root);
    const listings = await statFolders(dirs.map((d) => ({ abs: d.abs, ino: d.ino, size: d.children.size })));
    dirs.forEach((d, i) => listed.set(d, listings[i]));
    return listed;
  }

  /** Walks a known folder: gone entries dropped, changed ones hashed again, new names collected in `fresh`. */
  #walk(dir: DirNode, fresh: Fresh[], listed: Map<DirNode, Listing | undefined>): void {
    const listing = listed.has(dir) ? listed.get(dir) : statFolder(fs, dir.abs, dir.ino);
    if (!listing || (dir.parent && listing.names.includes('.git'))) {
      // Gone, swapped, or a nested repository now: out of the snapshot (a nested one is named when taken again).
      const parent = dir.parent;
      if (parent) {
        const name = path.posix.basename(dir.rel);
        this.#drop(parent, name, dir);
        if (listing) fresh.push({ dir: parent, name, rel: dir.rel });
      }
      return;
    }
    const pass = this.#pass;
    const children = dir.children;
    const { names, rows } = listing;
    const excluded = dir.rel === this.#excludedIn ? this.#excludedName : undefined;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name === '.git' || name === excluded) continue;
      const child = children.get(name);
      if (!child) {
        if (!dir.ignored?.has(name)) fresh.push({ dir, name, rel: join(dir.rel, name) });
        continue;
      }
      child.pass = pass;
      if (child.kind === 'file') {
        if (!child.racy && sameRow(rows, i, child.stamp)) continue;
        // Changed (or now of another kind): a tracked path stays tracked, whatever the ignore rules say now. A
        // `.gitignore` read again with the same bytes (it was racy) changes no rule.
        this.#drop(dir, name, child, false);
        this.#take(dir, name, fresh, undefined, child.oid);
      } else if (child.kind === 'dir') {
        if (rowIsFolder(rows, i)) this.#walk(child, fresh, listed);
        else {
          // A folder that is a file or a link now: a new path, which the ignore rules may leave out (as git does).
          this.#drop(dir, name, child);
          fresh.push({ dir, name, rel: child.rel });
        }
      } else if (!sameRow(rows, i, child.stamp)) {
        // Left out last time (too big, …) and changed since: looked at again.
        this.#drop(dir, name, child);
        fresh.push({ dir, name, rel: join(dir.rel, name) });
      }
    }
    // What the listing no longer names is gone (a child taken or walked in this pass carries its mark).
    for (const [name, child] of children) if (child.pass !== pass) this.#drop(dir, name, child);
  }

  /** A new path (not left out): a folder is walked from now on, a file hashed, anything else named. */
  #take(dir: DirNode, name: string, deeper: Fresh[], seen?: fs.Stats, was?: string): void {
    if (name === '.gitignore' && was !== undefined) {
      this.#takeOnce(dir, name, deeper, seen);
      const now = dir.children.get(name);
      if (now?.kind !== 'file' || now.oid !== was) this.#rulesChanged = true;
      return;
    }
    this.#takeOnce(dir, name, deeper, seen);
    if (name === '.gitignore' && dir.children.get(name)?.kind === 'file') this.#rulesChanged = true;
  }

  #takeOnce(dir: DirNode, name: string, deeper: Fresh[], seen?: fs.Stats): void {
    const abs = `${dir.abs}/${name}`;
    const stat = seen ?? lstatOf(abs);
    if (!stat) return;
    const rel = join(dir.rel, name);
    if (stat.isDirectory()) {
      const listing = this.#list(abs, rel, stat.ino);
      if (!listing) return;
      if (listing.nested) return this.#skip(dir, name, stat, `${rel}/ (a nested repository)`);
      const node: DirNode = { kind: 'dir', ino: stat.ino, rel, abs, parent: dir, children: new Map(), ignored: undefined, tree: undefined, pass: this.#pass };
      dir.children.set(name, node);
      touched(dir);
      for (const child of listing.names) deeper.push({ dir: node, name: child, rel: join(rel, child) });
      return;
    }
    if (!stat.isFile() && !stat.isSymbolicLink()) return this.#skip(dir, name, stat, `${rel} (not a regular file)`);
    if (stat.isFile() && stat.size > this.settings.maxFileBytes) return this.#skip(dir, name, stat, `${rel} (${stat.size} bytes, over the ${this.settings.maxFileBytes}-byte limit)`);
    const mode: Mode = stat.isSymbolicLink() ? '120000' : stat.mode & 0o100 ? '100755' : '100644';
    const logged = stat.isFile() ? this.#log.known(rel, stat) : undefined;
    if (logged !== undefined && this.#objects.has(logged)) {
      this.#add(dir, name, { kind: 'file', mode, oid: logged, stamp: stampOf(stat), racy: false, pass: this.#pass });
      return;
    }
    const read = this.#read(abs, stat);
    if (!read) return this.#skip(dir, name, stat, `${rel} (not readable)`);
    const oid = this.#objects.write('blob', read.bytes);
    const racy = racilyClean(read.stat, read.at);
    const stamp = stampOf(read.stat);
    if (!racy && mode !== '120000') this.#log.record(rel, oid, stamp);
    this.#add(dir, name, { kind: 'file', mode, oid, stamp, racy, pass: this.#pass });
  }

  #add(dir: DirNode, name: string, node: FileNode): void {
    if (this.#files >= this.settings.maxFiles) throw new TooManyFilesError(this.#root.abs, this.settings.maxFiles);
    dir.children.set(name, node);
    this.#files++;
    touched(dir);
  }

  /** A file's bytes (a link's target), and its stat data when read; undefined when it is no longer what was seen. */
  #read(file: string, seen: fs.Stats): { bytes: Buffer; stat: fs.Stats; at: number } | undefined {
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

  #skip(dir: DirNode, name: string, stat: fs.Stats, why: string): void {
    const node: SkipNode = { kind: 'skip', stamp: stampOf(stat), why, pass: this.#pass };
    dir.children.set(name, node);
    this.#skipped.add(node);
  }

  /** A path gone from the snapshot (a file, or a folder and all below it). */
  #drop(dir: DirNode, name: string, node: Node, rules = true): void {
    dir.children.delete(name);
    this.#forget(node);
    if (node.kind === 'file') this.#files--;
    if (node.kind !== 'skip') touched(dir);
    if (rules && node.kind === 'file' && name === '.gitignore') this.#rulesChanged = true;
  }

  #forget(node: Node): void {
    if (node.kind === 'skip') this.#skipped.delete(node);
    else if (node.kind === 'dir') for (const [name, child] of node.children) this.#drop(node, name, child);
  }

  /** A folder's names, when it is still the folder `ino` (not a link swapped in); `.git` and the store left out. */
  #list(abs: string, rel: string, ino: number): { names: string[]; nested: boolean } | undefined {
    try {
      const all = fs.readdirSync(abs);
      if (lstatOf(abs)?.ino !== ino) return undefined;
      const names = all.filter((name) => name !== '.git' && (rel !== this.#excludedIn || name !== this.#excludedName));
      return { names, nested: names.length !== all.length && all.includes('.git') };
    } catch {
      return undefined;
    }
  }

  /** Which of `paths` the ignore rules leave out (none when they are not respected). */
  async #ignoredOf(paths: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!this.settings.respectGitignore) return out;
    const r = await gitResult(['check-ignore', '-z', '--stdin', '--no-index'], { cwd: this.#root.abs, gitDir: this.gitDir, env: this.env, input: `${paths.join('\0')}\0`, maxBuffer: 256 * 1024 * 1024, timeoutMs: 30 * 60_000 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`git check-ignore failed: ${r.stderr.trim().split('\n')[0] ?? r.status}`);
    for (const p of r.stdout.split('\0')) if (p) out.add(p);
    return out;
  }

  /** The tree of `dir`, written again only when something below it changed. */
  #treeOf(dir: DirNode): string {
    if (dir.tree !== undefined) return dir.tree;
    const entries: { mode: string; name: string; oid: string; key: Buffer }[] = [];
    for (const [name, child] of dir.children) {
      if (child.kind === 'file') entries.push({ mode: child.mode, name, oid: child.oid, key: Buffer.from(name) });
      else if (child.kind === 'dir') {
        const oid = this.#treeOf(child);
        // An empty folder is not in a tree (git records files, not folders).
        if (oid !== EMPTY_TREE) entries.push({ mode: '40000', name, oid, key: Buffer.from(`${name}/`) });
      }
    }
    // git orders a tree's entries by name bytes, a folder's name as if it ended with `/`.
    entries.sort((a, b) => Buffer.compare(a.key, b.key));
    const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')]));
    dir.tree = this.#objects.write('tree', body);
    return dir.tree;
  }

  /** The scan starts over (nothing known): the next snapshot walks and hashes everything. */
  static fresh(root: string, gitDir: string, settings: ScanSettings, env: NodeJS.ProcessEnv): FolderScan {
    const stat = fs.lstatSync(root);
    const node: DirNode = { kind: 'dir', ino: stat.ino, rel: '', abs: root, parent: undefined, children: new Map(), ignored: undefined, tree: undefined, pass: 0 };
    return new FolderScan(node, gitDir, settings, env);
  }
}
