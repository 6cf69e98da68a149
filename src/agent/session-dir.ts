/**
 * Where a session keeps its files when the caller does not say: `<state>/sessions/<id>`, the state directory being
 * `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate` (tool/state-directory.ts).
 */
import path from 'node:path';
import { stateDirectory } from '../tool/state-directory.js';

export { stateDirectory };

export function defaultSessionDir(sessionId: string, env: NodeJS.ProcessEnv = process.env, homeDir?: string): string {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(sessionId) || sessionId === '.' || sessionId === '..') {
    throw new Error(`session id ${JSON.stringify(sessionId)} cannot name a folder (letters, digits, "_", "-", "." only)`);
  }
  return path.join(stateDirectory(env, homeDir), 'sessions', sessionId);
}
