/**
 * `isReadOnlyCommand`: every subcommand a known read/search/list command (or neutral), no write redirects, no
 * construct we cannot reason about, and — when a working directory is given — every path it names inside the
 * working directories.
 */
import { analyzeBashCommand } from './analyze.js';
import { classifySubcommand } from './classify.js';
import { nextCwdState, resolveArgPath, WorkingDirs, type CwdState } from './paths.js';
import type { ReadOnlyOptions, Redirect, SimpleCommand } from './types.js';

/** Write targets that are not files. */
export const HARMLESS_WRITE_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** Subcommands in execution order, with the commands inside a literal `bash -c '…'` following their shell. */
export function* flattenSubcommands(subs: readonly SimpleCommand[]): Generator<SimpleCommand> {
  for (const sub of subs) {
    yield sub;
    if (sub.inner) yield* flattenSubcommands(sub.inner);
  }
}

/** Redirects that read a file (`< file`). */
export function readRedirectTargets(redirects: readonly Redirect[]): (string | null)[] {
  return redirects.filter((r) => r.op === '<').map((r) => r.target);
}

export function isReadOnlyCommand(command: string, opts: ReadOnlyOptions = {}): boolean {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) return false;
  const cwd = opts.cwd;
  const dirs = new WorkingDirs(cwd === undefined ? [] : [cwd, ...(opts.workingDirectories ?? [])]);
  let state: CwdState = { dirs: cwd === undefined ? [] : [cwd], unknown: false };
  const pathOk = (raw: string): boolean => {
    if (cwd === undefined) return true;
    const resolved = resolveArgPath(raw, state, opts.homeDir);
    return resolved !== undefined && resolved.every((abs) => dirs.contains(abs));
  };
  const subs = [...flattenSubcommands(analysis.subcommands)];
  for (const sub of subs) {
    if (sub.unsafeReason) return false;
    for (const r of sub.redirects) {
      if (r.isWrite && (r.target === null || !HARMLESS_WRITE_TARGETS.has(r.target))) return false;
    }
    for (const target of readRedirectTargets(sub.redirects)) if (target === null || !pathOk(target)) return false;
    // A shell running a literal string is judged by the commands in it.
    if (sub.inner) continue;
    const verdict = classifySubcommand(sub);
    if (!verdict.readOnly) return false;
    if (cwd !== undefined && verdict.unknownPaths) return false;
    for (const p of verdict.paths) if (!pathOk(p)) return false;
    if (verdict.cd) state = nextCwdState(state, verdict.cd.target, opts.homeDir, sub.cdCertain);
  }
  return true;
}
