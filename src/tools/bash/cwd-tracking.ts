/**
 * The shell's working directory across calls. Each call is a fresh bash, so a `cd` survives only because the
 * shell records `pwd -P` on exit and the tool stores it in the app state — only when the command's text can lead
 * there (`recordedCwd`: a command can forge the record), only when it finished on its own (not aborted, timed out or
 * moved to the background), and only when it stays inside the working directories (the session's cwd and the
 * additional ones). A `cd` elsewhere resets the next call to the
 * session's directory, and the result says `Shell cwd was reset to <dir>`. Sub-agents never move the shared cwd.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { keepProjectDir } from './bash-settings.js';
import type { CwdBound } from './state-effects.js';

/** The session's directory: where calls start when the tracked cwd is unusable, and where a reset goes. */
export function projectDirectory(context: ToolUseContext): string {
  return context.getAppState().toolPermissionContext.cwd;
}

export function workingDirectories(context: ToolUseContext): string[] {
  const permissionContext = context.getAppState().toolPermissionContext;
  const dirs = [permissionContext.cwd];
  for (const [key, entry] of permissionContext.additionalWorkingDirectories) dirs.push(entry.path ?? key);
  return dirs;
}

export interface StartCwd {
  readonly cwd: string;
  /** Set when the tracked directory no longer exists and the call starts in the project directory instead. */
  readonly resetTo?: string;
}

export function startCwd(context: ToolUseContext, env: NodeJS.ProcessEnv = process.env): StartCwd {
  const project = projectDirectory(context);
  if (keepProjectDir(env)) return { cwd: project };
  const current = context.getAppState().cwd;
  if (isDirectory(current)) return { cwd: current };
  if (current !== project) context.setAppState((s) => ({ ...s, cwd: project }));
  return { cwd: project, resetTo: project };
}

/**
 * The directory the shell recorded at its end, if the command's text could have led there (`bound`,
 * state-effects.ts): the record is the command's own shell's, so a command could write any path there. A command
 * without a `cd` stays where it was; one with literal targets ends in one of them (or where it started); the record
 * must be a directory as `pwd -P` prints it (no symlink on the way, which no real record has).
 */
export function recordedCwd(record: string | undefined, bound: CwdBound): string | undefined {
  if (record === undefined || bound.kind === 'none') return undefined;
  if (!isDirectory(record) || physicalOrUndefined(record) !== record) return undefined;
  if (bound.kind === 'any') return record;
  return bound.dirs.some((dir) => physicalOrUndefined(dir) === record) ? record : undefined;
}

/**
 * Stores the command's final directory for the next call when allowed; returns the directory the shell was reset
 * to when the command left the working directories.
 */
export function settleCwd(context: ToolUseContext, finalCwd: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (finalCwd === undefined || context.agentDepth > 0 || keepProjectDir(env)) return undefined;
  const inside = workingDirectories(context).some((dir) => isWithin(finalCwd, physical(dir)));
  if (inside) {
    if (context.getAppState().cwd !== finalCwd) context.setAppState((s) => ({ ...s, cwd: finalCwd }));
    return undefined;
  }
  const project = projectDirectory(context);
  context.setAppState((s) => ({ ...s, cwd: project }));
  return project;
}

export function isWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : `${parent}${path.sep}`;
  return child.startsWith(prefix);
}

function physical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function physicalOrUndefined(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return existsSync(dir) && statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
