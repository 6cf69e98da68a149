/**
 * The seeds' `_simulatedSedEdit`: a `sed -i` the engine can simulate (permissions/bash/sed-edit.ts) is worked out
 * before it runs — the real GNU sed, `--sandbox`, fed the file's bytes on stdin and given no file name, so it can
 * only print — and the result is written by toolgate instead of running the command:
 *  - at the prompt: the preview (`permissionPreview`) shows the edit as a diff; approved, `call()` writes exactly the
 *    previewed bytes, and only if the file is still the very object previewed (same device, inode and real path,
 *    opened without following a link) holding the very bytes previewed; otherwise nothing is written and the model is
 *    told to run the command again (a new preview);
 *  - allowed without a prompt (an allow rule, acceptEdits): simulated at call time the same way, so sed itself never
 *    runs a script the subset admitted (a reading here that differed from sed's could only make the simulation fail).
 * The write is the house's atomic writer (a new inode, as `sed -i` makes one), bound to the opened file's real path.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { structuredPatch } from 'diff';
import { simulableSedEdit, type SedEdit } from '../../permissions/bash/sed-edit.js';
import { workingDirectories, isInsideDir } from '../../permissions/paths.js';
import { findExecutableOnPath } from '../../tool/executable-path.js';
import type { PermissionPreview } from '../../tool/permission-types.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { atomicWriteFile } from '../shared/atomic-write.js';
import { sha256 } from '../shared/hash.js';
import { openedPath, requireCheckedPath } from '../shared/opened-file.js';
import type { BashOutput } from './bash-output.js';

/** Files larger than this are not simulated (the command runs as it would otherwise). */
const MAX_SIMULATED_BYTES = 4 * 1024 * 1024;
const SED_DEADLINE_MS = 5_000;

/** What was simulated: the command, the object read and its bytes (by hash), and the bytes to write. */
export interface SimulatedSedEdit {
  readonly kind: 'sed-edit';
  readonly command: string;
  readonly filePath: string;
  readonly realPath: string;
  readonly dev: number;
  readonly ino: number;
  readonly originalHash: string;
  readonly updated: Buffer;
}

type Simulation = { readonly ok: true; readonly edit: SimulatedSedEdit; readonly original: Buffer } | { readonly ok: false; readonly error: string };

function isSimulatedSedEdit(data: unknown): data is SimulatedSedEdit {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'sed-edit';
}

/** The file opened without following a link, as a regular file: its descriptor's stat, real path and bytes. */
function readTarget(absPath: string): { st: fs.Stats; realPath: string; bytes: Buffer } | string {
  let fd: number;
  try {
    fd = fs.openSync(absPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? `${absPath} is a symbolic link` : `${absPath} cannot be opened (${code ?? String(error)})`;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return `${absPath} is not a regular file`;
    if (st.size > MAX_SIMULATED_BYTES) return `${absPath} is larger than ${MAX_SIMULATED_BYTES} bytes`;
    const realPath = openedPath(fd, absPath, st);
    const bytes = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = fs.readSync(fd, bytes, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return { st, realPath, bytes: bytes.subarray(0, got) };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    fs.closeSync(fd);
  }
}

/** GNU sed, `--sandbox`, on `input`: its output, or its error. Never given a file name. */
function runSandboxedSed(edit: SedEdit, input: Buffer, notIn: readonly string[]): Promise<{ ok: true; out: Buffer } | { ok: false; error: string }> {
  const sed = findExecutableOnPath('sed', process.env.PATH, notIn);
  if (sed === undefined) return Promise.resolve({ ok: false, error: 'sed was not found' });
  const args = ['--sandbox', ...(edit.extended ? ['-E'] : []), ...edit.scripts.flatMap((s) => ['-e', s])];
  return new Promise((resolve) => {
    const child = spawn(sed, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: SED_DEADLINE_MS, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > 4 * MAX_SIMULATED_BYTES) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => resolve({ ok: false, error: e.message }));
    child.on('close', (code, signal) => {
      if (code === 0 && size <= 4 * MAX_SIMULATED_BYTES) resolve({ ok: true, out: Buffer.concat(out) });
      else resolve({ ok: false, error: Buffer.concat(err).toString('utf8').trim() || `sed ended with ${signal ?? `exit code ${code}`}` });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** Simulates `command` when it is a `sed -i` in the subset; undefined when it is not one. */
export async function simulateSed(command: string, context: ToolUseContext): Promise<Simulation | undefined> {
  const edit = simulableSedEdit(command);
  if (edit === undefined) return undefined;
  const cwd = context.getAppState().cwd;
  const filePath = path.resolve(cwd, edit.file);
  const target = readTarget(filePath);
  if (typeof target === 'string') return { ok: false, error: target };
  const dirs = workingDirectories(context.getAppState().toolPermissionContext);
  const result = await runSandboxedSed(edit, target.bytes, dirs);
  if (!result.ok) return { ok: false, error: result.error };
  return {
    ok: true,
    original: target.bytes,
    edit: {
      kind: 'sed-edit',
      command,
      filePath,
      realPath: target.realPath,
      dev: target.st.dev,
      ino: target.st.ino,
      originalHash: sha256(target.bytes),
      updated: result.out,
    },
  };
}

/** The prompt's preview of a simulable `sed -i`: the edit as a diff, bound for `call()`. */
export async function sedPermissionPreview(command: string, context: ToolUseContext): Promise<PermissionPreview | undefined> {
  const sim = await simulateSed(command, context);
  if (sim === undefined || !sim.ok) return undefined;
  const before = sim.original.toString('utf8');
  const after = sim.edit.updated.toString('utf8');
  // A diff of bytes that are not text would show something else than what is written: no preview then.
  if (!Buffer.from(before, 'utf8').equals(sim.original) || !Buffer.from(after, 'utf8').equals(sim.edit.updated)) return undefined;
  const cwd = context.getAppState().cwd;
  const shown = path.relative(cwd, sim.edit.filePath) || sim.edit.filePath;
  const hunks = structuredPatch(shown, shown, before, after, '', '', { context: 3 }).hunks;
  return { summary: `sed edits ${shown}${hunks.length === 0 ? ' (no change)' : ''}`, filePath: sim.edit.filePath, hunks, data: sim.edit };
}

function output(stdout: string, isError: boolean): BashOutput {
  return { stdout, stderr: '', exitCode: isError ? 1 : 0, interrupted: false, isError };
}

/** Writes `edit` when the file is still the object and the bytes simulated; else says why nothing was written. */
async function writeSimulated(edit: SimulatedSedEdit, context: ToolUseContext, previewed: boolean): Promise<BashOutput> {
  const now = readTarget(edit.filePath);
  const again = previewed ? ' Run the command again to see the edit it would make now.' : '';
  const changed = (why: string) => output(`sed: ${edit.filePath} was not changed: ${why}.${again}`, true);
  if (typeof now === 'string') return changed(`${now} now`);
  if (now.st.dev !== edit.dev || now.st.ino !== edit.ino || now.realPath !== edit.realPath) return changed('it was replaced since the edit was worked out');
  if (sha256(now.bytes) !== edit.originalHash) return changed('its content changed since the edit was worked out');
  try {
    requireCheckedPath(now.realPath, edit.filePath, { context, access: 'write' }, now.st);
    await atomicWriteFile(edit.filePath, edit.updated, {
      checkTarget: (real) => {
        if (real !== edit.realPath) throw new Error(`it now leads to ${real}`);
      },
    });
  } catch (error) {
    return changed(error instanceof Error ? error.message : String(error));
  }
  return output('', false);
}

/**
 * Runs a simulable `sed -i` as its simulation: the approved preview when the prompt showed one for this very command,
 * else worked out now (a file outside the working directories, or any under the OS sandbox, is left to the command:
 * the sandbox confines it). Undefined: not simulated, run the command.
 */
export async function runSimulatedSed(command: string, context: ToolUseContext): Promise<BashOutput | undefined> {
  const approved = context.approvedPreview?.data;
  if (isSimulatedSedEdit(approved) && approved.command === command) return writeSimulated(approved, context, true);
  const sim = await simulateSed(command, context);
  if (sim === undefined) return undefined;
  if (!sim.ok) {
    // The subset admitted it, sed did not: its error, never a second try without --sandbox.
    return sim.error.startsWith('sed') ? output(sim.error, true) : undefined;
  }
  // Under the OS sandbox the command itself is confined: it runs there as before.
  if (context.options.settings.sandbox?.enabled === true) return undefined;
  const dirs = workingDirectories(context.getAppState().toolPermissionContext);
  if (!dirs.some((d) => isInsideDir(sim.edit.realPath, d))) return undefined;
  return writeSimulated(sim.edit, context, false);
}
