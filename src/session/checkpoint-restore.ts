/**
 * Putting a tracked folder back to a checkpoint's tree (checkpoints.ts): the difference between the tree of the files
 * now and the checkpoint's (`diff-tree`), applied file by file, each write atomic (a temporary file renamed over the
 * name: atomic-write.ts), each removal an unlink; a journal in the shadow repository lists the steps first, so a crash
 * mid-restore is finished by the next open of the store (`finishJournal`: every step is "make this name hold that
 * blob" or "remove this name", so doing one twice does no harm).
 *
 * A restore resolves paths and writes files where the model's commands could have put links: every folder on a path
 * is looked at from the tracked folder down without following links (a link or a non-folder there: the file is not
 * restored and is counted and named), the folder the write goes into is opened `O_NOFOLLOW` and checked by what was
 * opened (`/proc/self/fd`), and the write is confined to the tracked folder. A link at the file's own name is removed
 * (never written through), as a link that was not there at the checkpoint. docs/security.md, section 10.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit, runGitBytes } from '../tool/git-runner.js';
import { atomicWriteFile } from '../tools/shared/atomic-write.js';

export interface RootPlan {
  readonly root: string;
  readonly gitDir: string;
  /** The tree of the files now. */
  readonly from: string;
  /** The checkpoint's tree. */
  readonly to: string;
  /** What neither tree holds though it is there (too big, nested repositories). */
  readonly skipped: readonly string[];
}

export interface RootOutcome {
  readonly added: string[];
  readonly changed: string[];
  readonly deleted: string[];
  readonly insertions: number;
  readonly deletions: number;
  skippedLinks: number;
  readonly failed: string[];
  readonly notRestorable: string[];
}

type Step = { readonly path: string; readonly action: 'delete' } | { readonly path: string; readonly action: 'write'; readonly mode: string; readonly oid: string };

interface Journal {
  readonly root: string;
  readonly to: string;
  readonly steps: readonly Step[];
}

export interface RestoreOptions {
  readonly dryRun: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** Told after each step done (tests stop a restore there, as a crash would). */
  readonly afterStep?: (done: number) => void;
}

const JOURNAL = 'restore-journal.json';
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

export async function restoreRoot(plan: RootPlan, options: RestoreOptions): Promise<RootOutcome> {
  const git = (args: string[]) => runGit(args, { cwd: plan.root, gitDir: plan.gitDir, env: options.env, maxBuffer: 256 * 1024 * 1024 });
  const outcome = { added: [] as string[], changed: [] as string[], deleted: [] as string[], insertions: 0, deletions: 0, skippedLinks: 0, failed: [] as string[], notRestorable: plan.skipped.map((s) => `${path.join(plan.root, s)}: not checkpointed`) };
  if (plan.from === plan.to) return outcome;
  const raw = (await git(['diff-tree', '-r', '-z', '--no-renames', '--raw', plan.from, plan.to])).split('\0');
  const steps: Step[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(raw[i]!);
    const rel = raw[i + 1]!;
    if (!m) continue;
    if (!safeRelative(rel)) {
      // Never silently: a name the restore will not touch is said.
      outcome.notRestorable.push(`${JSON.stringify(rel)}: not restored (not a plain relative path)`);
      continue;
    }
    const [, , newMode, , newOid, status] = m;
    const abs = path.join(plan.root, rel);
    if (newMode === '160000' || m[1] === '160000') {
      outcome.notRestorable.push(`${abs}: a nested repository's commit, not its files`);
      continue;
    }
    if (status === 'D') {
      outcome.added.push(abs);
      steps.push({ path: rel, action: 'delete' });
    } else {
      (status === 'A' ? outcome.deleted : outcome.changed).push(abs);
      steps.push({ path: rel, action: 'write', mode: newMode!, oid: newOid! });
    }
  }
  for (const line of (await git(['diff-tree', '-r', '--no-renames', '--numstat', plan.from, plan.to])).split('\n')) {
    const m = /^(\d+)\t(\d+)\t/.exec(line);
    if (!m) continue;
    outcome.insertions += Number(m[1]);
    outcome.deletions += Number(m[2]);
  }
  if (options.dryRun) return outcome;
  // Every blob is read (and checked) before anything is touched: a store that lacks one refuses the rewind whole.
  const blobs = await readBlobs(plan.root, plan.gitDir, steps.flatMap((s) => (s.action === 'write' ? [s.oid] : [])), options.env);
  const lacking = steps.filter((s) => s.action === 'write' && !blobs.has(s.oid));
  if (lacking.length > 0) {
    for (const s of lacking) outcome.failed.push(`${path.join(plan.root, s.path)}: its content is missing from the checkpoint store, or damaged there (nothing restored)`);
    for (const list of [outcome.added, outcome.changed, outcome.deleted]) list.length = 0;
    return outcome;
  }
  // Removals first, deepest first: a folder the checkpoint had as a file is emptied before the file is written.
  steps.sort((a, b) => (a.action === b.action ? (a.action === 'delete' ? b.path.length - a.path.length : 0) : a.action === 'delete' ? -1 : 1));
  const journal: Journal = { root: plan.root, to: plan.to, steps };
  const file = path.join(plan.gitDir, JOURNAL);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(journal), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  await applySteps(plan.root, steps, blobs, options, outcome);
  fs.rmSync(file, { force: true });
  return outcome;
}

/** A restore a crash cut short is done to its end (its steps are idempotent); nothing when there is no journal. */
export async function finishJournal(gitDir: string, root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const file = path.join(gitDir, JOURNAL);
  let journal: Journal;
  try {
    journal = JSON.parse(fs.readFileSync(file, 'utf8')) as Journal;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    fs.rmSync(file, { force: true }); // cut before its rename: nothing of it was applied
    return;
  }
  if (journal.root === root && Array.isArray(journal.steps)) {
    const outcome: RootOutcome = { added: [], changed: [], deleted: [], insertions: 0, deletions: 0, skippedLinks: 0, failed: [], notRestorable: [] };
    const steps = journal.steps.filter((s) => safeRelative(s.path));
    const blobs = await readBlobs(root, gitDir, steps.flatMap((s) => (s.action === 'write' ? [s.oid] : [])), env);
    await applySteps(root, steps, blobs, { dryRun: false, env }, outcome);
  }
  fs.rmSync(file, { force: true });
}

async function applySteps(root: string, steps: readonly Step[], blobs: ReadonlyMap<string, Buffer>, options: RestoreOptions, outcome: RootOutcome): Promise<void> {
  const emptied = new Set<string>();
  let done = 0;
  for (const step of steps) {
    const abs = path.join(root, step.path);
    try {
      const refusal = step.action === 'delete' ? await removeEntry(root, step.path) : await writeEntry(root, step.path, step.mode, blobs.get(step.oid));
      if (refusal !== undefined) {
        outcome.skippedLinks++;
        outcome.notRestorable.push(`${abs}: not restored (${refusal})`);
      } else if (step.action === 'delete') emptied.add(path.dirname(step.path));
    } catch (error) {
      outcome.failed.push(`${abs}: ${error instanceof Error ? error.message : String(error)}`);
    }
    options.afterStep?.(++done);
  }
  // Folders the removals emptied (made since the checkpoint) go too; a folder with anything left in it stays.
  for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
    for (let d = dir; d !== '.' && d !== ''; d = path.dirname(d)) {
      const parent = await pinParent(root, d, false);
      if (typeof parent === 'string') break;
      try {
        fs.rmdirSync(path.join(parent.path, path.basename(d)));
      } catch {
        break;
      } finally {
        parent.close();
      }
    }
  }
}

/** Blob contents by id (`cat-file --batch`): a missing one, or one whose bytes are not its id's, is absent from the map. */
async function readBlobs(root: string, gitDir: string, oids: readonly string[], env: NodeJS.ProcessEnv): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return blobs;
  const out = await runGitBytes(['cat-file', '--batch'], { cwd: root, gitDir, env, input: `${unique.join('\n')}\n`, maxBuffer: 1024 * 1024 * 1024 });
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) break;
    const header = out.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (header[1] === 'missing' || header.length < 3) continue;
    const size = Number(header[2]);
    const bytes = out.subarray(at, at + size);
    at += size + 1;
    // git does not hash what it reads back: bytes changed in the store (a forged pack) are refused here, never written.
    if (header[1] !== 'blob' || bytes.length !== size || blobId(header[0]!, bytes) !== header[0]) continue;
    blobs.set(header[0]!, Buffer.from(bytes));
  }
  return blobs;
}

/** The id of the blob `bytes` in the store's hash (SHA-1, or SHA-256 for a 64-digit id). */
function blobId(like: string, bytes: Buffer): string {
  return createHash(like.length === 64 ? 'sha256' : 'sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * A path git could have written: relative, no empty, `.` or `..` part, no `.git` folder (a journal read back is checked
 * too). A backslash is a separator only on Windows: elsewhere it is a plain character of a name the model can make.
 */
function safeRelative(rel: string): boolean {
  if (typeof rel !== 'string' || rel === '' || path.isAbsolute(rel) || rel.includes('\0') || (process.platform === 'win32' && rel.includes('\\'))) return false;
  return rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

interface Pinned {
  /** Names the opened folder itself (`/proc/self/fd/N`), or its checked path where there is no /proc. */
  readonly path: string;
  close(): void;
}

/**
 * The folder holding `rel`, reached from `root` one name at a time without following a link (made when `create` and
 * missing), opened `O_NOFOLLOW` and checked by what was opened; or why not (a string).
 */
async function pinParent(root: string, rel: string, create: boolean): Promise<Pinned | string> {
  let dir = root;
  for (const part of rel.split('/').slice(0, -1)) {
    dir = path.join(dir, part);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      if (!create) return `${dir} is not there`;
      fs.mkdirSync(dir);
      stat = fs.lstatSync(dir);
    }
    if (stat.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (!stat.isDirectory()) return `${dir} is not a folder`;
  }
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch {
    return `${dir} is a symbolic link`;
  }
  const opened = PROC_FD ? fs.readlinkSync(`/proc/self/fd/${fd}`) : fs.realpathSync(dir);
  if (opened !== dir) {
    fs.closeSync(fd);
    return `${dir} leads to ${opened}`;
  }
  return { path: PROC_FD ? `/proc/self/fd/${fd}` : dir, close: () => fs.closeSync(fd) };
}

async function removeEntry(root: string, rel: string): Promise<string | undefined> {
  const parent = await pinParent(root, rel, false);
  if (typeof parent === 'string') return parent.endsWith('is not there') ? undefined : parent;
  try {
    const name = path.join(parent.path, path.basename(rel));
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(name);
    } catch {
      return undefined; // gone already
    }
    if (stat.isDirectory()) return `${path.join(root, rel)} is a folder now`;
    fs.unlinkSync(name); // a link is removed itself, never what it points to
    return undefined;
  } finally {
    parent.close();
  }
}

async function writeEntry(root: string, rel: string, mode: string, bytes: Buffer | undefined): Promise<string | undefined> {
  if (bytes === undefined) throw new Error('its content is missing from the checkpoint store');
  const parent = await pinParent(root, rel, true);
  if (typeof parent === 'string') return parent;
  const base = path.basename(rel);
  try {
    const name = path.join(parent.path, base);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(name);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) {
      try {
        fs.rmdirSync(name);
      } catch {
        return `${path.join(root, rel)} is a folder now`;
      }
    } else if (stat && (stat.isSymbolicLink() || mode === '120000' || !stat.isFile())) fs.unlinkSync(name);
    if (mode === '120000') {
      fs.symlinkSync(bytes.toString('utf8'), name);
      return undefined;
    }
    const executable = mode === '100755';
    const target = path.join(root, rel);
    // A new file gets 0666/0777 less the umask; an existing one keeps its mode (a 0600 file stays private) and only
    // its executable bits follow the checkpoint. Changed through a descriptor opened without following a link: a
    // link a running command swaps in after the write is never chmod'ed through.
    await atomicWriteFile(target, bytes, { confineTo: [root], mode: executable ? 0o777 : 0o666, fsync: true });
    const fd = fs.openSync(name, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const now = fs.fstatSync(fd).mode & 0o7777;
      const wanted = executable ? now | ((now & 0o444) >> 2) : now & ~0o111;
      if (fs.fstatSync(fd).isFile() && now !== wanted) fs.fchmodSync(fd, wanted);
    } finally {
      fs.closeSync(fd);
    }
    return undefined;
  } finally {
    parent.close();
  }
}
