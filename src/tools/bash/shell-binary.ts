/**
 * bash by its absolute path, found once per PATH. Run by its bare name, every command searched PATH in the exec — one
 * failed execve per entry before bash's (eight on this machine's PATH, with cargo and pyenv first) — and bash then
 * searched it again for its own `$BASH`. Claude Code also runs its shell by an absolute path, found once.
 *
 * The search is the exec's own: entries in order, the first regular file there that may be executed. A PATH with a
 * relative or empty entry before that (whose meaning depends on the working directory), no PATH, or a PATH without
 * bash keeps the bare name, and the exec answers as it always did. A path that stops working (the file removed)
 * is forgotten when its command fails to start, and looked for again by the next.
 */
import path from 'node:path';
import { isExecutableFile } from '../shared/executable.js';

const BARE = 'bash';
/** A handful of PATHs at most in practice (the process's, a settings env's); bounded all the same. */
const MAX_REMEMBERED = 16;
const found = new Map<string, string>();

export function bashBinary(env: Readonly<Record<string, string | undefined>>): string {
  const search = env.PATH;
  if (search === undefined || search === '') return BARE;
  const hit = found.get(search);
  if (hit !== undefined) return hit;
  for (const dir of search.split(':')) {
    if (!path.isAbsolute(dir)) return BARE;
    const candidate = path.join(dir, BARE);
    if (!isExecutableFile(candidate)) continue;
    if (found.size >= MAX_REMEMBERED) found.clear();
    found.set(search, candidate);
    return candidate;
  }
  return BARE;
}

/** The command run with `env` did not start: its PATH is searched again next time. */
export function forgetBashBinary(env: Readonly<Record<string, string | undefined>>): void {
  if (env.PATH !== undefined) found.delete(env.PATH);
}
