/**
 * Paths as the file tools see them: absolute, `~` expanded, relative paths resolved against the session's cwd (which
 * a `cd` in Bash moves), and the "did you mean" help Claude Code gives when a file is missing.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deniedOpenedObject } from '../../permissions/paths.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { fdPath, openedPath, requireCheckedPath, type CheckedAccess } from './opened-file.js';

function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/') || p.startsWith(`~${path.sep}`)) return path.join(os.homedir(), p.slice(2));
  return p;
}

/** `p` made absolute against `cwd` (normalised: `a/../b` is `b`). */
export function expandPath(p: string, cwd: string): string {
  return path.resolve(cwd, expandHome(p));
}

export function getToolCwd(context: ToolUseContext): string {
  return context.getAppState().cwd;
}

export function resolveToolPath(p: string, context: ToolUseContext): string {
  return expandPath(p, getToolCwd(context));
}

/**
 * For `getPath()`, which has no context: absolute paths normalised, `~` expanded. A path that is still relative is
 * returned as it is rather than guessed against the process cwd — the pipeline hands permission checks the backfilled
 * clone, whose paths `backfillPathField` has already made absolute against the session cwd.
 */
export function pathForPermission(p: string): string {
  const expanded = expandHome(p);
  return path.isAbsolute(expanded) ? path.normalize(expanded) : expanded;
}

/** Makes `input[field]` absolute on the observable clone, so hooks and permission rules see what `call()` will use. */
export function backfillPathField(input: Record<string, unknown>, field: string, context: ToolUseContext): void {
  const value = input[field];
  if (typeof value === 'string' && value.length > 0 && !value.includes('\0')) input[field] = resolveToolPath(value, context);
}

/** An input-only check (no filesystem access), run in `validateInput` before any permission decision. */
export function validatePathInput(value: string, field: string): string | undefined {
  if (value.length === 0) return `${field} must not be empty.`;
  if (value.includes('\0')) return `${field} must not contain NUL bytes.`;
  return undefined;
}

export function fileNotFoundMessage(cwd: string, suggestion?: string): string {
  let message = `File does not exist. Note: your current working directory is ${cwd}.`;
  if (suggestion) message += ` Did you mean ${suggestion}?`;
  return message;
}

/**
 * A file in the same folder whose name differs only in case, or has the same stem with another extension
 * (`index.js` for `index.ts`). Best effort: any error means no suggestion. With `checked`, the folder listed is the
 * one the call's decision covers (opened, then bound like a file: opened-file.ts) and names a deny rule covers are not
 * suggested — a folder flipped to a denied one does not tell its names.
 */
export async function suggestSimilarPath(absPath: string, checked?: CheckedAccess): Promise<string | undefined> {
  const dir = path.dirname(absPath);
  const base = path.basename(absPath);
  let names: string[];
  try {
    names = checked ? listCheckedFolder(dir, base, absPath, checked) : await fs.readdir(dir);
  } catch {
    return undefined;
  }
  const lower = base.toLowerCase();
  const sameCase = names.find((n) => n !== base && n.toLowerCase() === lower);
  if (sameCase) return path.join(dir, sameCase);
  const stem = path.parse(base).name.toLowerCase();
  if (stem.length === 0) return undefined;
  const sameStem = names.filter((n) => n !== base && path.parse(n).name.toLowerCase() === stem).sort();
  return sameStem[0] === undefined ? undefined : path.join(dir, sameStem[0]);
}

/** The names in `dir`, opened and bound to the call's decision for `absPath`; denied names left out. */
function listCheckedFolder(dir: string, base: string, absPath: string, checked: CheckedAccess): string[] {
  const fd = fsSync.openSync(dir, fsSync.constants.O_RDONLY | (fsSync.constants.O_DIRECTORY ?? 0));
  try {
    const real = openedPath(fd, dir, fsSync.fstatSync(fd));
    requireCheckedPath(path.join(real, base), absPath, { ...checked, access: 'read' });
    const ctx = checked.context.getAppState().toolPermissionContext;
    const names = fsSync.readdirSync(fdPath(fd) ?? real);
    return names.filter((n) => deniedOpenedObject(path.join(real, n), { dev: 0, ino: 0, nlink: 1 }, 'read', ctx) === undefined);
  } finally {
    fsSync.closeSync(fd);
  }
}

/**
 * macOS names screenshots `Screenshot … at 10.02.03 AM.png` with a narrow no-break space (U+202F) before AM/PM;
 * models type a normal space. Returns the other spelling when the given one is missing.
 */
export function screenshotAlternative(absPath: string): string | undefined {
  const m = /^(.*)([ \u202F])(AM|PM)(\.png)$/.exec(path.basename(absPath));
  if (!m) return undefined;
  const other = m[2] === ' ' ? '\u202F' : ' ';
  return path.join(path.dirname(absPath), `${m[1]}${other}${m[3]}${m[4]}`);
}
