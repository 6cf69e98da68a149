/** Set-up the checkpoint tests share: temporary folders removed after each test, and git with no user config. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A maker of temporary folders (real paths), each removed after the test that made it; call at a file's top level. */
export function useTempDirs(): (prefix: string) => string {
  const temps: string[] = [];
  afterEach(() => {
    for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    temps.push(dir);
    return dir;
  };
}

/** The environment for the tests' own git: no user or system config, no GIT_* of the caller's. */
export function plainGitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: os.tmpdir(), XDG_CONFIG_HOME: path.join(os.tmpdir(), 'no-such-config') };
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];
  return env;
}
