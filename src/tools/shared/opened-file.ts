/**
 * A permission check bound to the file actually opened (docs/security.md, invariant 2). The engine judges a path and
 * notes the real path it resolved it to (src/tool/path-checks.ts); between that and `call()` another process can flip
 * a symlink anywhere in the path. So a file tool opens first, asks the descriptor what it is open on — on Linux
 * `/proc/self/fd/N`, the kernel's own name for the object, no path resolved again — and goes on only when that is:
 *   - not covered by a deny rule (by its real path, and for a file with several names by its identity), and
 *   - the path as given (no link on the way), or the real path the decision judged, or an object the engine allows
 *     on its own (inside the working directories, an allow rule); when the decision judged nothing (a gate that is
 *     not the engine, a remote worker) the deny rules are all there is to bind.
 * Otherwise nothing is read or written and the model is told why. Writes bind the folder they write through and the
 * name in it (atomic-write.ts), and make missing folders inside folders already bound (`makeParentFolders`).
 *
 * Without /proc (macOS) the object's path is the path's real path asked again after the open, and the descriptor must
 * be that very file (same device and inode): a flip before the open is seen, one back again before that look is seen
 * too (another inode); it costs a realpath and a stat more, and the docs say it is the weaker of the two.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkPathPermission, comparablePath, deniedOpenedObject, type FileIdentity, type PathAccessKind } from '../../permissions/paths.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { describeFsError, FileToolError } from './errors.js';

/** The call an open is bound to (its decision's record and its rules) and what it does to the path. */
export interface CheckedAccess {
  readonly context: ToolUseContext;
  readonly access: PathAccessKind;
}

/** `/proc/self/fd/N` names what a descriptor is open on (Linux). */
export const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

/** For objects whose other names do not matter (folders; a file a write replaces by rename). */
const ONE_NAME: FileIdentity = { dev: 0, ino: 0, nlink: 1 };

const DELETED = ' (deleted)';

/** A path that names the object open on `fd` itself, for as long as it is open (Linux); undefined elsewhere. */
export function fdPath(fd: number): string | undefined {
  return PROC_FD ? `/proc/self/fd/${fd}` : undefined;
}

/**
 * The real path of the object open on `fd`, opened through `absPath`; `st` is the descriptor's fstat. Throws a
 * FileToolError when the object is no longer named by any path it could be judged by (removed since the open).
 */
export function openedPath(fd: number, absPath: string, st: fs.Stats): string {
  try {
    if (PROC_FD) {
      const real = fs.readlinkSync(`/proc/self/fd/${fd}`);
      // The kernel marks an object whose name was removed; a file can also be called that. Only that name still naming
      // this very object says which.
      if (real.endsWith(DELETED) && !sameObject(fs.statSync(real, { throwIfNoEntry: false }), st)) throw changedWhileOpening(absPath);
      return real;
    }
    const real = fs.realpathSync.native(absPath);
    if (!sameObject(fs.statSync(real, { throwIfNoEntry: false }), st)) throw changedWhileOpening(absPath);
    return real;
  } catch (error) {
    throw error instanceof FileToolError ? error : describeFsError(error, absPath);
  }
}

function sameObject(a: fs.Stats | undefined, b: fs.Stats): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}

function changedWhileOpening(absPath: string): FileToolError {
  return new FileToolError(`${absPath} changed while it was being opened (it was removed or replaced); nothing was read. Try again.`, 'FILE_CHANGED');
}

/** Throws unless the object open on `fd` (`st`: its fstat), opened through `absPath`, is one the call's decision covers. */
export function requireCheckedObject(fd: number, st: fs.Stats, absPath: string, checked: CheckedAccess): string {
  const real = openedPath(fd, absPath, st);
  requireCheckedPath(real, absPath, checked, st.isFile() ? st : ONE_NAME);
  return real;
}

/**
 * Throws unless `realPath` — the real path of what the call is about to read or write through `absPath`, learnt from
 * a descriptor — is covered by the call's decision. `identity`: the object's fstat, for its other names (hard links).
 */
export function requireCheckedPath(realPath: string, absPath: string, checked: CheckedAccess, identity: FileIdentity = ONE_NAME): void {
  const { context, access } = checked;
  const ctx = context.getAppState().toolPermissionContext;
  const real = comparablePath(realPath);
  const given = comparablePath(absPath);
  const denied = deniedOpenedObject(real, identity, access, ctx);
  if (denied) {
    const via = real === given ? '' : ` ${absPath} led there when it was opened.`;
    throw new FileToolError(`${denied.message}.${via} Nothing was ${access === 'read' ? 'read' : 'written'}.`, 'PERMISSION_DENIED');
  }
  if (real === given) return;
  const checks = context.pathChecks;
  const judged = checks?.realPathOf(given);
  if (real === judged || checks === undefined || !checks.judgedAny) return;
  // Not what was judged: it stands only if the engine allows it on its own (a link to another allowed file).
  if (checkPathPermission(real, access, ctx).behavior === 'allow') return;
  const verb = access === 'read' ? 'read' : 'write';
  const then = typeof judged === 'string' ? `when its permission was checked it led to ${judged}, ` : '';
  throw new FileToolError(
    `Refused to ${verb} ${absPath}: ${then}when it was opened it led to ${real}, which that check did not cover (a link in the path changed in between). Nothing was ${access === 'read' ? 'read' : 'written'}; ask again if the change was intended.`,
    'PATH_CHANGED',
  );
}

const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * `mkdir -p` of the folder `absPath` goes in, bound like an open: the deepest folder that exists is opened and the
 * file's real path through it must be one the decision covers; then each missing folder is made inside the folder
 * opened before it (`/proc/self/fd/N/name`, mkdirat's meaning) and opened without following a link. A folder flipped
 * to a link elsewhere meanwhile gets nothing. A folder that exists already is left to the write, which binds it.
 */
export function makeParentFolders(absPath: string, checked: CheckedAccess | undefined): void {
  const dir = path.dirname(absPath);
  try {
    if (isDirectory(dir)) return;
    if (!PROC_FD || checked === undefined) {
      fs.mkdirSync(dir, { recursive: true });
      return;
    }
    const missing: string[] = [];
    let base = dir;
    while (!isDirectory(base) && path.dirname(base) !== base) {
      missing.unshift(path.basename(base));
      base = path.dirname(base);
    }
    let fd = fs.openSync(base, fs.constants.O_RDONLY | O_DIRECTORY);
    try {
      const real = openedPath(fd, base, fs.fstatSync(fd));
      requireCheckedPath(path.join(real, ...missing, path.basename(absPath)), absPath, checked);
      for (const name of missing) {
        const inside = `/proc/self/fd/${fd}/${name}`;
        try {
          fs.mkdirSync(inside);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        // O_NOFOLLOW: a link put in its place since is not a folder of ours (ELOOP).
        const next = fs.openSync(inside, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        fs.closeSync(fd);
        fd = next;
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if (error instanceof FileToolError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new FileToolError(`Refused to create the folders of ${absPath}: one of them became a symbolic link while they were made. Nothing was written.`, 'PATH_CHANGED');
    }
    throw describeFsError(error, absPath);
  }
}
