/**
 * The shell's working directory across calls. Each call is a fresh bash, so a `cd` survives only because the
 * shell records `pwd -P` on exit and the tool stores it in the app state — and only when it stays inside the
 * working directories (the session's cwd and the additional ones). A `cd` elsewhere resets the next call to the
 * session's directory, and the result says `Shell cwd was reset to <dir>`. Sub-agents never move the shared cwd.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { keepProjectDir } from './bash-settings.js';

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

function isDirectory(dir: string): boolean {
  try {
    return existsSync(dir) && statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
