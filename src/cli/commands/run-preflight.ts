/**
 * What `toolgate run` (and the bare `toolgate`) checks before anything starts, as claude does: a `--settings` file
 * that is not there or not JSON, bypassPermissions as root (a bad `--mcp-config` is found where it is read, once:
 * run-flags.ts). Each is
 * one line on stderr and exit 1 — and under `--output-format json|stream-json` also a result object on stdout, so a
 * script reading stdout is never left with nothing (claude prints nothing there; toolgate's addition).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isInlineJson } from '../../tool/read-config-file.js';

/** The flags the checks read (a subset of `run`'s options). */
export interface PreflightOptions {
  readonly cwd: string;
  readonly settings: readonly string[];
  readonly permissionMode?: string;
  readonly dangerouslySkipPermissions?: boolean;
  readonly allowDangerouslySkipPermissions?: boolean;
}

/** The first problem that stops the run before it starts, in one line; `undefined` when there is none. */
export function preflight(opts: PreflightOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cwd = path.resolve(opts.cwd);
  for (const arg of opts.settings) {
    const file = isInlineJson(arg) ? undefined : path.resolve(cwd, arg);
    let text: string;
    try {
      text = file === undefined ? arg : readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? `Settings file not found: ${file}` : `Settings file ${file} cannot be read (${code ?? String(error)})`;
    }
    if (text.trim() === '') continue;
    try {
      JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (error) {
      return `${file === undefined ? '--settings' : `Settings file ${file}`} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const bypass = opts.permissionMode === 'bypassPermissions' || opts.dangerouslySkipPermissions === true || opts.allowDangerouslySkipPermissions === true;
  if (bypass && isRootOutsideDeliberateSandbox(env)) return '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
  return undefined;
}

/**
 * Claude Code refuses bypassPermissions (and the option of it) to root unless the environment says it is a sandbox
 * on purpose: `IS_SANDBOX=1`, or `CLAUDE_CODE_BUBBLEWRAP` set.
 */
export function isRootOutsideDeliberateSandbox(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return false;
  return process.getuid() === 0 && env.IS_SANDBOX !== '1' && !env.CLAUDE_CODE_BUBBLEWRAP;
}

/**
 * The result object of a run that stopped before it started, in the shape of claude's error results
 * (`subtype: "error_during_execution"`, `is_error`, `errors`, zero usage), for `--output-format json|stream-json`.
 */
export function earlyErrorResult(message: string, sessionId: string = crypto.randomUUID()): Record<string, unknown> {
  return {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    result: '',
    stop_reason: null,
    session_id: sessionId,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    modelUsage: {},
    permission_denials: [],
    errors: [message],
    uuid: crypto.randomUUID(),
  };
}
