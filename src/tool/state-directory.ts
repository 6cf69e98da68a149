/**
 * Where toolgate keeps its state — session folders with transcripts and tool results, MCP OAuth tokens:
 * `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate` — state, not cache (transcripts are resumed) and not
 * config. Low in the layers because the sandbox (tools/bash) hides it from sandboxed commands.
 */
import os from 'node:os';
import path from 'node:path';

export function stateDirectory(env: NodeJS.ProcessEnv = process.env, homeDir: string = os.homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative path is invalid and must be ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.local', 'state');
  return path.join(base, 'toolgate');
}
