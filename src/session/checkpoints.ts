/**
 * File checkpoints of a session (issue 35): before each user turn the state of the project's files — and of the added
 * directories — is recorded in a shadow git object store kept in the session's folder (toolgate's state folder, outside
 * the project), so whatever changed them (Edit, Write, a Bash `sed -i`, a generated file, an `rm -r`) can be put back.
 *
 * One shadow repository per tracked folder (`<session>/checkpoints/<key>/`). The snapshot is taken in this process
 * (checkpoint-scan.ts): the stat data of every file is kept from the last one, only changed files are hashed and their
 * blobs and trees written into the shadow's object store; git is asked only which new paths the ignore rules leave
 * out, and diffs and reads trees on a rewind. Every git goes through the one
 * hardened runner (no hooks, no filters, no fsmonitor), with the shadow repository named by `--git-dir`: the project's
 * own `.git` and its configuration are never read. The shadow's own `info/attributes` switches off every content
 * conversion a project's `.gitattributes` could ask for (line endings, filters, encodings), so a blob holds the bytes
 * of the file.
 *
 * What is checkpointed (docs/checkpoints.md): regular files and symlinks (as links) under the folders; not what the
 * folders' `.gitignore` files, the user's global ignore file or `info/exclude` ignore (unless `respectGitignore` is
 * false) — a file already checkpointed stays checkpointed if it becomes ignored —; not files over `maxFileBytes`
 * (named in the record), not nested repositories' files (named too), not empty folders.
 *
 * Each session has its own store (its folder), so sessions never share an index or a record; the snapshots of one
 * store run one at a time.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit } from '../tool/git-runner.js';
import { finishJournal, restoreRoot, type RootPlan } from './checkpoint-restore.js';
import { sealJournals } from './checkpoint-pack.js';
import { FolderScan, TooManyFilesError } from './checkpoint-scan.js';

export interface CheckpointSettings {
  /** Files larger than this are not checkpointed (default 10 MiB); the record names them. */
  readonly maxFileBytes?: number;
  /** `false`: ignored files are checkpointed too (default true: `.gitignore` is respected). */
  readonly respectGitignore?: boolean;
  /**
   * A tracked folder with more files than this (default 20,000; ignored ones not counted) is not checkpointed: the
   * store says so once, and takes no checkpoint after (a first checkpoint copies every file into the store).
   */
  readonly maxFiles?: number;
}

/** One tracked folder's state at a checkpoint: its tree, and what was left out of it. */
export interface RootState {
  readonly tree: string;
  /** Paths (relative) not in the tree though present: over the size limit, nested repositories. */
  readonly skipped: readonly string[];
}

export interface CheckpointRecord {
  /** The user message the checkpoint was taken before. */
  readonly id: string;
  readonly at: string;
  /** Its place in the conversation (messages before it). */
  readonly index: number;
  /** A short preview of the message (the picker's line). */
  readonly label: string;
  /** A checkpoint before a call inside a turn (named by the call's tool_use id): the user message of its turn. */
  readonly turn?: string;
  /** Tracked folder (real path) → its state. */
  readonly roots: Readonly<Record<string, RootState>>;
}

/** What a rewind does (or, with `dryRun`, would do): the Agent SDK's `RewindFilesResult`, and toolgate's details. */
export interface RewindResult {
  readonly canRewind: boolean;
  readonly error?: string;
  /** Every file the rewind writes or removes (absolute paths). */
  readonly filesChanged?: string[];
  readonly insertions?: number;
  readonly deletions?: number;
  /** Files not restored because a link or a non-regular file stands in the way (a real rewind only). */
  readonly skippedLinks?: number;
  /** Files made since the checkpoint: the rewind removes them. */
  readonly added?: string[];
  /** Files changed since: the rewind writes them back. */
  readonly changed?: string[];
  /** Files deleted since: the rewind recreates them. */
  readonly deleted?: string[];
  /** What the rewind cannot put back, one line each (said, never skipped silently). */
  readonly notRestorable?: string[];
}

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_FILES = 20_000;
/** Content conversions a project's `.gitattributes` could ask for, switched off: a blob is the file's bytes. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n';

interface Shadow {
  readonly root: string;
  readonly gitDir: string;
  /** What the last snapshot saw (checkpoint-scan.ts), made by the first. */
  scan: FolderScan | undefined;
}

export class CheckpointStore {
  readonly #dir: string;
  readonly #shadows: Shadow[];
  readonly #settings: Required<CheckpointSettings>;
  readonly #env: NodeJS.ProcessEnv;
  readonly #records = new Map<string, CheckpointRecord>();
  #queue: Promise<unknown> = Promise.resolve();
  /** Why no checkpoint is taken any more (a folder over `maxFiles`): each later one fails at once with it. */
  #stopped: Error | undefined;

  private constructor(dir: string, shadows: Shadow[], settings: CheckpointSettings, env: NodeJS.ProcessEnv) {
    this.#dir = dir;
    this.#shadows = shadows;
    this.#settings = { maxFileBytes: settings.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, respectGitignore: settings.respectGitignore ?? true, maxFiles: settings.maxFiles ?? DEFAULT_MAX_FILES };
    this.#env = env;
  }

  /**
   * The store in `dir` for `folders` (the project first, then the added directories), made on first use; the records
   * of an earlier run of the session are read back, and a restore a crash cut short is finished first.
   */
  static async open(given: string, folders: readonly string[], settings: CheckpointSettings = {}, env: NodeJS.ProcessEnv = process.env): Promise<CheckpointStore> {
    fs.mkdirSync(given, { recursive: true, mode: 0o700 });
    // Its real path, as the tracked folders' (the red team): a store reached through a link into a tracked folder was
    // not seen inside it — every snapshot took the store in (doubling it) and a rewind removed its records.
    const dir = fs.realpathSync(given);
    const roots = trackedRoots(folders);
    const shadows: Shadow[] = [];
    for (const root of roots) shadows.push({ root, gitDir: await shadowRepository(dir, root, env), scan: undefined });
    const store = new CheckpointStore(dir, shadows, settings, env);
    for (const shadow of shadows) {
      // Objects a process that is gone appended to its journal (checkpoint-pack.ts): made a pack git reads.
      sealJournals(packDir(shadow.gitDir));
      await finishJournal(shadow.gitDir, shadow.root, env);
    }
    store.#readRecords();
    return store;
  }

  /** The tracked folders (real paths). */
  get roots(): readonly string[] {
    return this.#shadows.map((s) => s.root);
  }

  /** The checkpoints, oldest first. */
  list(): readonly CheckpointRecord[] {
    return [...this.#records.values()];
  }

  get(id: string): CheckpointRecord | undefined {
    return this.#records.get(id);
  }

  /**
   * Records the files' state before the user message `id` — or before the call `id` inside the turn of the user
   * message `turn` — (a second checkpoint for the same id replaces nothing).
   */
  checkpoint(id: string, index: number, label: string, turn?: string): Promise<CheckpointRecord> {
    return this.#serial(async () => {
      const known = this.#records.get(id);
      if (known) return known;
      const roots: Record<string, RootState> = {};
      for (const shadow of this.#shadows) roots[shadow.root] = await this.#snapshot(shadow);
      const record: CheckpointRecord = { id, at: new Date().toISOString(), index, label: label.slice(0, 200), ...(turn !== undefined ? { turn } : {}), roots };
      this.#records.set(id, record);
      fs.appendFileSync(path.join(this.#dir, 'checkpoints.jsonl'), `${JSON.stringify(record)}\n`, { mode: 0o600 });
      return record;
    });
  }

  /** The folders' state now, recorded in the store (not as a checkpoint). */
  snapshot(): Promise<Readonly<Record<string, RootState>>> {
    return this.#serial(async () => {
      const roots: Record<string, RootState> = {};
      for (const shadow of this.#shadows) roots[shadow.root] = await this.#snapshot(shadow);
      return roots;
    });
  }

  /**
   * What the checkpoints so far wrote is made readable by git (their journals sealed into packs: checkpoint-pack.ts).
   * A rewind does it itself; for whoever reads the store with git meanwhile (tests, a person looking).
   */
  seal(): Promise<void> {
    return this.#serial(async () => {
      for (const shadow of this.#shadows) this.#seal(shadow);
    });
  }

  /**
   * Puts the tracked files back as they were at checkpoint `id` (or says what it would do, `dryRun`). The state now is
   * recorded first, so a rewind can itself be undone by the next checkpoint. `notRestorable` lines (what the session
   * knows was done outside the folders, or by commands) are passed through to the result.
   */
  rewind(id: string, options: { readonly dryRun?: boolean; readonly notRestorable?: readonly string[]; readonly afterStep?: (done: number) => void } = {}): Promise<RewindResult> {
    return this.#serial(async () => {
      const record = this.#records.get(id);
      if (!record) return { canRewind: false, error: `No file checkpoint for message ${id}` };
      const plans: RootPlan[] = [];
      const unknown: string[] = [];
      for (const shadow of this.#shadows) {
        const then = record.roots[shadow.root];
        if (!then) {
          // A folder added after this checkpoint was taken (a resumed session with another added directory).
          unknown.push(`${shadow.root}: not tracked when this checkpoint was taken, not restored`);
          continue;
        }
        let now = await this.#snapshot(shadow);
        // git reads the store from here: what this process appended to its journals is sealed into packs first. A
        // journal changed behind the store's back: the state now is taken again from nothing (the scan's memory of
        // what the store holds is wrong), so `now` names only objects that are there.
        if (!this.#seal(shadow)) {
          now = await this.#snapshot(shadow);
          this.#seal(shadow);
        }
        plans.push({ root: shadow.root, gitDir: shadow.gitDir, from: now.tree, to: then.tree, skipped: [...new Set([...then.skipped, ...now.skipped])] });
      }
      const results = [];
      for (const plan of plans) results.push(await restoreRoot(plan, { dryRun: options.dryRun === true, env: this.#env, ...(options.afterStep ? { afterStep: options.afterStep } : {}) }));
      const added = results.flatMap((r) => r.added);
      const changed = results.flatMap((r) => r.changed);
      const deleted = results.flatMap((r) => r.deleted);
      const notRestorable = [...unknown, ...results.flatMap((r) => r.notRestorable), ...(options.notRestorable ?? [])];
      const skippedLinks = results.reduce((n, r) => n + r.skippedLinks, 0);
      const failed = results.flatMap((r) => r.failed);
      const filesChanged = [...added, ...changed, ...deleted];
      const all = filesChanged.length + skippedLinks + failed.length;
      return {
        canRewind: all === 0 || filesChanged.length > 0 || options.dryRun === true,
        ...(failed.length > 0 ? { error: `Could not restore: ${failed.join('; ')}` } : {}),
        filesChanged,
        insertions: results.reduce((n, r) => n + r.insertions, 0),
        deletions: results.reduce((n, r) => n + r.deletions, 0),
        ...(options.dryRun ? {} : { skippedLinks }),
        added,
        changed,
        deleted,
        notRestorable,
      };
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** The shadow's journals sealed; false (and the scan dropped) when its own was not as written. */
  #seal(shadow: Shadow): boolean {
    const intact = shadow.scan?.seal() ?? true;
    sealJournals(packDir(shadow.gitDir));
    if (!intact) shadow.scan = undefined;
    return intact;
  }

  async #snapshot(shadow: Shadow): Promise<RootState> {
    if (this.#stopped) throw this.#stopped;
    shadow.scan ??= FolderScan.fresh(shadow.root, shadow.gitDir, { ...this.#settings, ...storeInside(shadow.root, this.#dir) }, this.#env);
    try {
      return await shadow.scan.snapshot();
    } catch (error) {
      // A snapshot cut short (git not found, a folder unreadable) leaves the scan half-updated: the next one starts over.
      shadow.scan = undefined;
      // Too many files stays so: walking up to the limit again on every turn would cost the most for nothing.
      if (error instanceof TooManyFilesError) this.#stopped = error;
      throw error;
    }
  }

  #readRecords(): void {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.#dir, 'checkpoints.jsonl'), 'utf8');
    } catch {
      return;
    }
    for (const line of text.split('\n')) {
      try {
        const record = JSON.parse(line) as CheckpointRecord;
        if (typeof record.id === 'string' && wellFormedRoots(record.roots)) this.#records.set(record.id, record);
      } catch {
        // a line cut by a crash
      }
    }
  }
}

/**
 * A record read back names object ids only: its trees go to `git diff-tree` as arguments, where a planted
 * `--output=<file>` would make git write anywhere.
 */
function wellFormedRoots(roots: unknown): roots is Record<string, RootState> {
  if (!roots || typeof roots !== 'object') return false;
  return Object.values(roots).every((r) => {
    const state = r as Partial<RootState> | null;
    return typeof state?.tree === 'string' && OBJECT_ID.test(state.tree) && Array.isArray(state.skipped) && state.skipped.every((s) => typeof s === 'string');
  });
}

function packDir(gitDir: string): string {
  return path.join(gitDir, 'objects', 'pack');
}

/** The store's path in `root` when it sits there (a state folder under the project): never part of a snapshot. */
function storeInside(root: string, dir: string): { excluded?: string } {
  const rel = path.relative(root, dir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? { excluded: rel.split(path.sep).join('/') } : {};
}

/** The real paths of `folders`, each once, a folder inside another one left out (the outer one covers it). */
function trackedRoots(folders: readonly string[]): string[] {
  const real = [...new Set(folders.map((f) => fs.realpathSync(path.resolve(f))))];
  return real.filter((r) => !real.some((o) => o !== r && r.startsWith(o.endsWith('/') ? o : `${o}/`)));
}

/** The shadow repository for `root` in `dir`: made with its configuration the first time. */
async function shadowRepository(dir: string, root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const gitDir = path.join(dir, createHash('sha256').update(root).digest('hex').slice(0, 16));
  if (!fs.existsSync(path.join(gitDir, 'HEAD'))) {
    if (/[\n\0]/.test(root)) throw new Error(`cannot checkpoint ${JSON.stringify(root)}: its path holds a line break`);
    await runGit(['init', '--bare', '-q', gitDir], { cwd: dir, env });
    const quoted = `"${root.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    // The shadow's own configuration: it outranks the user's global one; the project's is never read.
    fs.writeFileSync(
      path.join(gitDir, 'config'),
      [
        '[core]',
        '\trepositoryformatversion = 0',
        '\tbare = false',
        `\tworktree = ${quoted}`,
        '\tfilemode = true',
        '\tsymlinks = true',
        '\tautocrlf = false',
        '\tsafecrlf = false',
        '\tignorecase = false',
        '\tquotepath = false',
        '\tuntrackedCache = true',
        '[gc]',
        '\tauto = 0',
        '',
      ].join('\n'),
    );
    fs.mkdirSync(path.join(gitDir, 'info'), { recursive: true });
    fs.writeFileSync(path.join(gitDir, 'info', 'attributes'), ATTRIBUTES);
    // The store may sit inside a tracked folder (a state folder under the project): it is never part of a snapshot.
    const rel = path.relative(root, dir);
    fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `/${rel.split(path.sep).join('/')}/\n` : '');
  }
  return gitDir;
}
