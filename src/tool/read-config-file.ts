/**
 * Reading a configuration file that a repository or a home folder supplies (settings, `.mcp.json`, `~/.claude.json`,
 * agent definitions, secret files named by settings): whoever wrote it may be hostile. So the file must be a regular file (a symlink is followed, then its
 * target checked: `/dev/zero` or a FIFO is refused, never read or waited on), under a size cap, valid UTF-8 (a byte
 * that would decode to U+FFFD could silently change a deny rule's text: refused, naming the file and line), and JSON
 * no deeper than `MAX_JSON_DEPTH` (deeper values overflow the stack of every recursive consumer: refused, naming the
 * key where it happens).
 */
import fs from 'node:fs';
import path from 'node:path';

/** A flag's value (`--settings`, `--mcp-config`, `--agents`) that holds inline JSON (`{…}`) rather than a path. */
export function isInlineJson(value: string): boolean {
  return value.trimStart().startsWith('{');
}

/** A flag's value as the loaders take it: inline JSON as given, a path resolved against `cwd`. */
export function inlineJsonOrPath(value: string, cwd: string): string {
  return isInlineJson(value) ? value : path.resolve(cwd, value);
}

/** Settings files are a few kilobytes; `~/.claude.json` keeps per-project state and can grow to megabytes. */
export const MAX_CONFIG_FILE_BYTES = 32 * 1024 * 1024;

/** Far beyond any real configuration (hooks are ~6 levels deep), far below what recursion tolerates. */
export const MAX_JSON_DEPTH = 100;

export type ConfigTextResult =
  | { readonly kind: 'missing' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'ok'; readonly text: string };

/**
 * The file's text, BOM removed. `missing` when nothing is there (ENOENT/ENOTDIR: most scopes have no file);
 * `error` with a message that does not repeat the file name (the caller names it). `lenientUtf8` for text whose
 * exact bytes decide nothing (a list of secrets to hide: a replacement character there hides a little less).
 */
export function readConfigText(file: string, options: { maxBytes?: number; lenientUtf8?: boolean } = {}): ConfigTextResult {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'error', message: `cannot read it: ${code ?? String(error)}` };
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) return { kind: 'error', message: `it is not a regular file (${kindOf(stats)}); only a regular file (or a symlink to one) is read` };
    if (stats.size > maxBytes) return { kind: 'error', message: `it is ${stats.size} bytes, over the limit of ${maxBytes}` };
    // Read to the end, not to the size fstat gave: the file may grow meanwhile, and the cap must hold for what is read.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) return { kind: 'error', message: `it grew past the limit of ${maxBytes} bytes while being read` };
    }
    const bytes = Buffer.concat(chunks, total);
    const bad = options.lenientUtf8 === true ? undefined : firstInvalidUtf8(bytes);
    if (bad !== undefined) {
      const line = countNewlines(bytes, bad) + 1;
      return { kind: 'error', message: `it is not valid UTF-8 (line ${line}, byte ${bad}); a settings file must be UTF-8, and a byte that cannot be read exactly is never guessed at` };
    }
    return { kind: 'ok', text: bytes.toString('utf8').replace(/^\uFEFF/, '') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: 'error', message: `cannot read it: ${code === 'EISDIR' ? 'it is a directory' : (code ?? String(error))}` };
  } finally {
    fs.closeSync(fd);
  }
}

export type JsonParseResult =
  | { readonly ok: true; readonly json: unknown }
  | { readonly ok: false; readonly problem: 'syntax'; readonly error: unknown }
  | { readonly ok: false; readonly problem: 'depth'; readonly key: string; readonly message: string };

/** `JSON.parse`, then the depth check (JSON.parse itself copes with any depth; its consumers do not). */
export function parseConfigJson(text: string): JsonParseResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: 'syntax', error };
  }
  const key = tooDeepAt(json, MAX_JSON_DEPTH);
  if (key !== undefined) {
    return { ok: false, problem: 'depth', key, message: `nesting deeper than ${MAX_JSON_DEPTH} levels at ${key || 'the top level'}` };
  }
  return { ok: true, json };
}

/** The key path (`a.b[2]`) of the first value nested deeper than `max`, found without recursion; undefined if none. */
export function tooDeepAt(value: unknown, max: number): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return path;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        stack.push({ value: child, path: path === '' ? keyText(k) : `${path}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

const keyText = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : `[${JSON.stringify(k)}]`);

function kindOf(stats: fs.Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a file';
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629), if any. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const min = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    if (b === 0xed) max = 0x9f;
    else if (b === 0xf4) max = 0x8f;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < min || c > max : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return undefined;
}

function countNewlines(bytes: Uint8Array, end: number): number {
  let lines = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) lines++;
  return lines;
}
