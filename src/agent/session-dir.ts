/**
 * Where a session keeps its files when the caller does not say: `$XDG_STATE_HOME/toolgate/sessions/<id>`, else
 * `~/.local/state/toolgate/sessions/<id>` — state, not cache (transcripts are resumed) and not config.
 */
import os from 'node:os';
import path from 'node:path';

export function stateDirectory(env: NodeJS.ProcessEnv = process.env, homeDir: string = os.homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative path is invalid and must be ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.local', 'state');
  return path.join(base, 'toolgate');
}

export function defaultSessionDir(sessionId: string, env: NodeJS.ProcessEnv = process.env, homeDir?: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(sessionId) || sessionId === '.' || sessionId === '..') {
    throw new Error(`session id ${JSON.stringify(sessionId)} cannot name a folder (letters, digits, "_", "-", "." only)`);
  }
  return path.join(stateDirectory(env, homeDir), 'sessions', sessionId);
}
