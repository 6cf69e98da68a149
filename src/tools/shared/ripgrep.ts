/**
 * Running ripgrep for Grep and Glob: find the binary (the one `@vscode/ripgrep` ships, else `rg` on PATH), stream its
 * output record by record so a caller can stop it as soon as it has what it needs (memory stays bounded however much
 * rg would print), and kill it on abort or when the time limit passes.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import path from 'node:path';
import { isExecutableFile } from './executable.js';

export interface RipgrepLocation {
  readonly path: string;
  /** `env`: TOOLGATE_RIPGREP_PATH; `vscode`: the binary inside @vscode/ripgrep's platform package; `system`: PATH. */
  readonly source: 'env' | 'vscode' | 'system';
}

export interface LocateRipgrepOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Where @vscode/ripgrep says its binary is (undefined when the platform package is missing). */
  readonly loadBundledPath?: () => Promise<string | undefined>;
}

export class RipgrepNotFoundError extends Error {
  override readonly name = 'RipgrepNotFoundError';
}

/** Finds an executable ripgrep: an explicit override first, then the bundled binary, then `rg` on PATH. */
export async function locateRipgrep(options: LocateRipgrepOptions = {}): Promise<RipgrepLocation> {
  const env = options.env ?? process.env;
  const override = env.TOOLGATE_RIPGREP_PATH;
  if (override !== undefined && override !== '') {
    if (isExecutableFile(override)) return { path: override, source: 'env' };
    throw new RipgrepNotFoundError(`TOOLGATE_RIPGREP_PATH is set to ${override}, which is not an executable file`);
  }
  const bundled = await (options.loadBundledPath ?? loadBundledRipgrepPath)();
  if (bundled !== undefined && isExecutableFile(bundled)) return { path: bundled, source: 'vscode' };
  const system = findOnPath(process.platform === 'win32' ? 'rg.exe' : 'rg', env.PATH);
  if (system !== undefined) return { path: system, source: 'system' };
  throw new RipgrepNotFoundError(
    'ripgrep (rg) is not available: the @vscode/ripgrep platform package is not installed and no rg is on PATH. ' +
      'Install ripgrep, or reinstall with optional dependencies.',
  );
}

async function loadBundledRipgrepPath(): Promise<string | undefined> {
  try {
    // The module throws at import time when its platform package is missing: import it lazily, inside a try.
    const mod = (await import('@vscode/ripgrep')) as { rgPath?: unknown };
    return typeof mod.rgPath === 'string' ? mod.rgPath : undefined;
  } catch {
    return undefined;
  }
}

function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

let located: Promise<RipgrepLocation> | undefined;

/** The ripgrep this process uses, located once (a failure is not cached: the next call looks again). */
export function getRipgrep(): Promise<RipgrepLocation> {
  if (!located) {
    located = locateRipgrep();
    located.catch(() => {
      located = undefined;
    });
  }
  return located;
}

export interface RipgrepRequest {
  readonly args: readonly string[];
  /** rg's working directory: its `--glob` patterns are matched relative to it. */
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** What ends one record: NUL for `--null` file lists, newline for lines. */
  readonly separator: '\0' | '\n';
  /** Called for every record, in order; returning `false` stops the search (rg is killed, nothing more is read). */
  readonly onRecord: (record: string) => boolean | void;
  /** A descriptor rg gets as its fd 3 (a file searched through `/proc/self/fd/3`: search-path.ts SearchRoot). */
  readonly inheritFd?: number;
  /** Descriptors rg gets as its fds 3, 4, … (files opened and bound before the search: grep-bound.ts). */
  readonly inheritFds?: readonly number[];
}

export interface RipgrepOutcome {
  /** rg's exit code (0 matches, 1 none, 2 error); null when it was killed. */
  readonly exitCode: number | null;
  /** rg's diagnostics (the first 64 KiB). */
  readonly stderr: string;
  /** The caller stopped the search early. */
  readonly stopped: boolean;
  readonly timedOut: boolean;
  /** How many records were handed to `onRecord`. */
  readonly records: number;
}

const MAX_STDERR = 64 * 1024;
/** A record longer than this (a pathological line rg could not shorten) is cut: memory must stay bounded. */
const MAX_RECORD = 1024 * 1024;

export function abortError(what: string): Error {
  const error = new Error(`${what} was aborted`);
  error.name = 'AbortError';
  return error;
}

/** Runs rg to completion, to the caller's stop, to the time limit or to an abort (which rejects with AbortError). */
export async function runRipgrep(request: RipgrepRequest, what = 'The search'): Promise<RipgrepOutcome> {
  const rg = await getRipgrep();
  if (request.signal.aborted) throw abortError(what);
  return new Promise<RipgrepOutcome>((resolve, reject) => {
    const fds = request.inheritFds ?? (request.inheritFd === undefined ? [] : [request.inheritFd]);
    const stdio: StdioOptions = ['ignore', 'pipe', 'pipe', ...fds];
    const child = spawn(rg.path, request.args, { cwd: request.cwd, stdio, windowsHide: true });
    // Both are pipes (stdio above); the typings cannot see it through the array.
    const out = child.stdout!;
    const err = child.stderr!;
    let stopped = false;
    let timedOut = false;
    let aborted = false;
    let records = 0;
    let pending = '';
    let stderr = '';
    const finished = () => stopped || timedOut || aborted;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
    };
    const deliver = (record: string): boolean => {
      records++;
      if (request.onRecord(record) === false) {
        stopped = true;
        kill();
        return false;
      }
      return true;
    };

    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      if (finished()) return;
      const text = pending.length > 0 ? pending + chunk : chunk;
      const sep = request.separator;
      let start = 0;
      let end = text.indexOf(sep);
      while (end !== -1) {
        if (!deliver(text.slice(start, end))) {
          pending = '';
          return;
        }
        start = end + 1;
        end = text.indexOf(sep, start);
      }
      pending = text.length - start > MAX_RECORD ? text.slice(start, start + MAX_RECORD) : text.slice(start);
    });
    err.setEncoding('utf8');
    err.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.slice(0, MAX_STDERR - stderr.length);
    });
    child.on('error', (error) => {
      cleanup();
      reject(error);
    });
    child.on('close', (code) => {
      cleanup();
      if (aborted) {
        reject(abortError(what));
        return;
      }
      if (!finished() && pending.length > 0) deliver(pending);
      resolve({ exitCode: code, stderr, stopped, timedOut, records });
    });
  });
}
