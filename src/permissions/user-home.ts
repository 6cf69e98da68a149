/**
 * `~user`: that user's home directory, from the passwd database (`getent passwd`, which also asks NSS sources such as
 * LDAP; `/etc/passwd` where there is no getent). `os.userInfo()` knows only the current user, and guessing a home
 * beside ours is wrong for root, system accounts and any site that keeps homes elsewhere.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readTextSync } from './observed-fs.js';

const USER_NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*\$?$/;
const homes = new Map<string, string | null>();

/** The home directory of `name`, or undefined when the passwd database has no such user (or no usable entry). */
export function homeOfUser(name: string): string | undefined {
  if (!USER_NAME.test(name)) return undefined;
  let home = homes.get(name);
  if (home === undefined) {
    home = lookUp(name) ?? null;
    homes.set(name, home);
  }
  return home ?? undefined;
}

/**
 * Where `~user` points for a deny check: the passwd entry, else (a user this machine does not know) where homes are
 * kept beside `ownHome` — a path that cannot be in the working directory, never a folder named `~user`.
 */
export function homeOfUserOrGuess(name: string, ownHome: string): string {
  return homeOfUser(name) ?? (name === 'root' ? '/root' : path.join(path.dirname(ownHome), name));
}

/** `~user` or `~user/…` → the user's name; undefined for anything else (`~`, `~/…`, not a tilde prefix). */
export function tildeUser(p: string): string | undefined {
  const m = /^~([^/]+)(?:\/|$)/.exec(p);
  return m && USER_NAME.test(m[1]!) ? m[1] : undefined;
}

function lookUp(name: string): string | undefined {
  const getent = spawnSync('getent', ['passwd', name], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] });
  if (getent.error === undefined && getent.status !== null) return getent.status === 0 ? homeField(getent.stdout, name) : undefined;
  try {
    return homeField(readTextSync('/etc/passwd'), name);
  } catch {
    return undefined;
  }
}

/** `name:x:uid:gid:gecos:home:shell` lines; the first entry for `name` wins, as getpwnam's does. */
function homeField(text: string, name: string): string | undefined {
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    if (fields[0] !== name || fields.length < 7) continue;
    const home = fields[5]!;
    return home.startsWith('/') ? home : undefined;
  }
  return undefined;
}
