/**
 * One Bash call from start to result: sandbox decision, start directory, scrubbed environment, a fresh shell in its
 * own process group writing to its own output file, then one of four endings — the command exits; the call is
 * aborted (the group is terminated); the timeout passes (moved to the background, or killed when it must not be);
 * or it was a background call from the start (returns at once, the task registry takes over).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { analyzeBashCommand } from '../../permissions/bash/index.js';
import type { ToolCallProgress, ToolResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import {
  BACKGROUND_DEFAULT_LIFETIME_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_OUTPUT_FILE_BYTES,
  DEFAULT_PROGRESS_INTERVAL_MS,
  FAILURE_EXCERPT_CHARS,
  backgroundTasksEnabled,
  envFileFromEnv,
  inlineOutputChars,
  timeoutLimits,
} from './bash-settings.js';
import { backgroundLine, formatOutputBody, type BashOutput } from './bash-output.js';
import { buildChildEnv } from './child-env.js';
import { settleCwd, startCwd } from './cwd-tracking.js';
import { interpretExitCode } from './exit-code.js';
import { detectImageOutput } from './image-output.js';
import { collapseCarriageReturns, lastLines, readOutputTail, readOutputWindow } from './output-file.js';
import { detectSandbox } from './sandbox.js';
import { buildSandboxPolicy } from './sandbox-policy.js';
import { wrapInSandbox, type SandboxLaunch } from './sandbox-runtime.js';
import { buildShellScript, quote } from './shell-script.js';
import { ShellProcess, type ShellExit } from './shell-process.js';
import { getTaskRegistry } from './task-registry.js';

export interface BashInput {
  readonly command: string;
  readonly timeout?: number;
  readonly description?: string;
  readonly run_in_background?: boolean;
  readonly dangerouslyDisableSandbox?: boolean;
}

export interface BashProgress {
  readonly type: 'bash_progress';
  /** The latest lines of output (`\r` collapsed). */
  readonly output: string;
  readonly totalBytes: number;
  readonly elapsedTimeSeconds: number;
  readonly taskId: string;
  readonly outputFile: string;
  readonly [key: string]: unknown;
}

const WINDOW_BYTES = 64 * 1024;
const PROGRESS_TAIL_BYTES = 4 * 1024;
const PROGRESS_LINES = 5;

export async function runBash(
  input: BashInput,
  context: ToolUseContext,
  toolUseID: string,
  onProgress?: ToolCallProgress<BashProgress>,
): Promise<ToolResult<BashOutput>> {
  const settings = context.options.settings;
  const limit = inlineOutputChars(settings);
  const notes: string[] = [];
  if (context.abortController.signal.aborted) {
    return result({ stdout: '', stderr: '', exitCode: null, interrupted: true, isError: true });
  }

  // — sandbox: decided before anything starts; requested but unavailable means refused, never silently unsandboxed —
  const start = startCwd(context);
  if (start.resetTo !== undefined) notes.push(`Shell cwd was reset to ${start.resetTo}`);
  const { env } = buildChildEnv(settings.baseEnv ?? process.env, settings.bash);
  // Settings' env names are explicit: they are set even when a secret pattern would have scrubbed the inherited value.
  if (settings.env !== undefined) Object.assign(env, settings.env);
  const envFile = envFileFromEnv();
  const script = buildShellScript(input.command, envFile);
  let launch: SandboxLaunch | undefined;
  if (settings.sandbox?.enabled === true) {
    const excluded = excludedCommand(input.command, settings.sandbox.excludedCommands);
    if (input.dangerouslyDisableSandbox === true) {
      notes.push('(ran outside the sandbox: dangerouslyDisableSandbox)');
    } else if (excluded !== undefined) {
      notes.push(`(ran outside the sandbox: "${excluded}" is in sandbox.excludedCommands)`);
    } else {
      const availability = await detectSandbox();
      let reason = availability.available ? undefined : availability.reason;
      if (availability.available) {
        try {
          const tmp = sessionTempDirectory(context);
          env.TMPDIR = tmp;
          const policy = buildSandboxPolicy(context.getAppState().toolPermissionContext, settings.sandbox, tmp);
          launch = await wrapInSandbox(`export TMPDIR=${quote(tmp)}; ${script}`, policy, availability, { commandId: toolUseID || input.command.slice(0, 100), commandText: input.command });
        } catch (error) {
          reason = `the sandbox runtime could not start: ${(error as Error).message.split('\n')[0]}`;
        }
      }
      if (launch === undefined) {
        if (settings.sandbox.failIfUnavailable !== false) {
          return result({
            stdout: '',
            stderr: `Sandboxing is enabled in settings but unavailable: ${reason}. The command was not run.`,
            exitCode: null,
            interrupted: false,
            isError: true,
            sandboxed: false,
          });
        }
        notes.push(`(sandbox unavailable: ${reason}; the command ran unsandboxed)`);
      }
    }
  }

  // — where, with what —
  const registry = getTaskRegistry(context);
  const id = newTaskId();
  let outputFile: string;
  let proc: ShellProcess;
  try {
    const dir = outputDirectory(context);
    outputFile = path.join(dir, `${id}.output`);
    const spawnOptions = {
      id,
      command: input.command,
      cwd: start.cwd,
      env,
      outputFile,
      envFile,
      launch,
      markerScope: registry.markerScope,
      killGraceMs: settings.bash?.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      maxOutputBytes: settings.bash?.maxOutputFileBytes ?? DEFAULT_MAX_OUTPUT_FILE_BYTES,
      pollIntervalMs: settings.bash?.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    };
    try {
      proc = new ShellProcess(spawnOptions);
    } catch (error) {
      // The session folder was removed under us: make it again once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      outputDirectory(context, true);
      proc = new ShellProcess(spawnOptions);
    }
  } catch (error) {
    launch?.release();
    return result({ stdout: '', stderr: `Could not start bash: ${(error as Error).message}`, exitCode: null, interrupted: false, isError: true });
  }
  const sandboxed = launch !== undefined;

  // Progress belongs to this call: a task that outlives it (background) stops reporting to it.
  let stopProgress = () => {};
  if (onProgress !== undefined) {
    stopProgress = proc.onOutput((size) => {
      const tail = readOutputTail(outputFile, PROGRESS_TAIL_BYTES);
      onProgress({
        toolUseID,
        data: {
          type: 'bash_progress',
          output: lastLines(collapseCarriageReturns(tail.text), PROGRESS_LINES),
          totalBytes: size,
          elapsedTimeSeconds: Math.round((Date.now() - proc.startedAt) / 100) / 10,
          taskId: id,
          outputFile,
        },
      });
    });
  }

  const notifications = context.services.notifications;

  // — background from the start —
  if (input.run_in_background === true) {
    stopProgress();
    registry.adopt(proc, {
      description: input.description,
      backgroundedBy: 'request',
      notifications,
      lifetimeMs: input.timeout ?? BACKGROUND_DEFAULT_LIFETIME_MS,
    });
    return result({
      stdout: '',
      stderr: notes.join('\n'),
      exitCode: null,
      interrupted: false,
      isError: false,
      backgroundTaskId: id,
      outputFile,
      sandboxed,
    });
  }

  // — foreground: exit, abort or timeout, whichever comes first —
  const timeoutMs = input.timeout ?? timeoutLimits(settings).defaultMs;
  const signal = context.abortController.signal;
  let onAbort: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const ending = await new Promise<'exit' | 'abort' | 'timeout'>((resolve) => {
    void proc.exited.then(() => resolve('exit'));
    onAbort = () => resolve('abort');
    // An abort during the awaits above (the first sandbox probe) has fired already: a listener would never hear it.
    if (signal.aborted) resolve('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  if (onAbort) signal.removeEventListener('abort', onAbort);
  if (timer) clearTimeout(timer);

  if (ending === 'timeout' && proc.running) {
    const disposition = timeoutDisposition(input.command, context);
    if (disposition.background) {
      stopProgress();
      registry.adopt(proc, {
        description: input.description,
        backgroundedBy: 'timeout',
        notifications,
        lifetimeMs: BACKGROUND_DEFAULT_LIFETIME_MS,
      });
      const partial = readOutputTail(outputFile, WINDOW_BYTES);
      const sofar = collapseCarriageReturns(partial.text);
      const shown = sofar.slice(-Math.min(limit, FAILURE_EXCERPT_CHARS));
      notes.push(
        `Command did not complete within its ${seconds(timeoutMs)} timeout and was moved to the background. ` +
          backgroundLine(id, outputFile) +
          '. You will be notified when it ends; TaskOutput or Read on the file shows its output, TaskStop ends it.',
      );
      return result({
        stdout: partial.complete && shown.length === sofar.length ? shown : `[… earlier output in ${outputFile}]\n${shown}`,
        stderr: notes.join('\n'),
        exitCode: null,
        interrupted: false,
        isError: false,
        backgroundTaskId: id,
        outputFile,
        timedOutAfterMs: timeoutMs,
        timeoutOutcome: 'moved_to_background',
        sandboxed,
      });
    }
    const exit = await proc.kill('timeout');
    notes.push(`Command timed out after ${seconds(timeoutMs)} and was killed: ${disposition.reason}.`);
    return finish(exit, { timedOutAfterMs: timeoutMs, timeoutOutcome: 'killed' });
  }
  if (ending === 'abort' && proc.running) {
    const exit = await proc.kill('abort');
    return finish(exit, {});
  }
  return finish(await proc.exited, {});

  async function finish(exit: ShellExit, extra: Partial<BashOutput>): Promise<ToolResult<BashOutput>> {
    if (exit.spawnError !== undefined) {
      safeUnlink(outputFile);
      notes.unshift(`Could not start bash: ${exit.spawnError}`);
      return result({ stdout: '', stderr: notes.join('\n'), exitCode: null, interrupted: false, isError: true, sandboxed });
    }
    const interrupted = exit.killReason === 'abort';
    const killed = exit.killReason !== undefined;
    const interpretation =
      exit.code !== null && !killed
        ? interpretExitCode(input.command, exit.code, exit.code === 1 ? lastArgv(input.command) : undefined)
        : { isError: true };
    if (exit.killReason === 'output-limit') {
      notes.push(`Command was killed: its output passed the ${exit.outputBytes.toLocaleString('en-US')}-byte limit of the output file.`);
    }
    const resetTo = settleCwd(context, exit.finalCwd);
    if (resetTo !== undefined) notes.push(`Shell cwd was reset to ${resetTo}`);

    const window = readOutputWindow(outputFile, WINDOW_BYTES);
    if (exit.code === 0 && !killed) {
      const image = await detectImageOutput(outputFile, window.head, window.sizeBytes);
      if (image !== undefined) {
        safeUnlink(outputFile);
        if (image.note) notes.push(`(${image.note})`);
        return result({
          stdout: '',
          stderr: notes.join('\n'),
          exitCode: 0,
          interrupted: false,
          isError: false,
          isImage: true,
          image: { base64: image.base64, mediaType: image.mediaType },
          sandboxed,
        });
      }
    }
    const body = formatOutputBody(window, { limit, failed: interpretation.isError, outputFile });
    if (!body.truncated) safeUnlink(outputFile);
    return result({
      stdout: body.text,
      stderr: notes.join('\n'),
      exitCode: exit.code,
      signal: exit.signal,
      interrupted,
      isError: interpretation.isError,
      returnCodeInterpretation: interpretation.message,
      outputBytes: exit.outputBytes,
      truncated: body.truncated,
      ...(body.truncated ? { outputFile } : {}),
      cwdResetTo: resetTo,
      sandboxed,
      ...extra,
    });
  }
}

function result(data: BashOutput): ToolResult<BashOutput> {
  return { data };
}

type TimeoutDisposition = { background: true } | { background: false; reason: string };

/** Claude Code's rule: move to the background, except `sleep …` and commands that cannot be parsed. */
export function timeoutDisposition(command: string, context: ToolUseContext): TimeoutDisposition {
  if (!backgroundTasksEnabled(context.options.settings)) return { background: false, reason: 'background tasks are disabled' };
  if (/^\s*sleep(\s|$)/.test(command)) {
    return { background: false, reason: 'commands starting with `sleep` are not moved to the background' };
  }
  const analysis = safeAnalyze(command);
  if (analysis === undefined || !analysis.ok) {
    const why = analysis === undefined ? 'the parser failed' : analysis.reason;
    return { background: false, reason: `the command could not be parsed (${why}), so it is not moved to the background` };
  }
  const first = analysis.subcommands[0]?.strippedArgv ?? analysis.subcommands[0]?.argv;
  if (first?.[0] === 'sleep') {
    return { background: false, reason: 'commands starting with `sleep` are not moved to the background' };
  }
  return { background: true };
}

function safeAnalyze(command: string): ReturnType<typeof analyzeBashCommand> | undefined {
  try {
    return analyzeBashCommand(command);
  } catch {
    return undefined;
  }
}

function lastArgv(command: string): readonly string[] | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined || !analysis.ok) return undefined;
  const last = analysis.subcommands[analysis.subcommands.length - 1];
  return last?.strippedArgv ?? last?.argv ?? undefined;
}

const createdDirs = new Set<string>();

/** `<sessionDir>/tasks`: every command's output file, kept when the result points at it. */
function outputDirectory(context: ToolUseContext, force = false): string {
  const dir = path.join(context.options.sessionDir, 'tasks');
  if (force || !createdDirs.has(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    createdDirs.add(dir);
  }
  return dir;
}

/** `<sessionDir>/tmp`: the session temp folder, writable inside the sandbox and the command's TMPDIR there. */
function sessionTempDirectory(context: ToolUseContext): string {
  const dir = path.join(context.options.sessionDir, 'tmp');
  if (!createdDirs.has(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    createdDirs.add(dir);
  }
  return dir;
}

/** The `sandbox.excludedCommands` entry a subcommand starts with (`docker`, `git push`), if any. */
export function excludedCommand(command: string, excluded: readonly string[] | undefined): string | undefined {
  if (excluded === undefined || excluded.length === 0) return undefined;
  const analysis = safeAnalyze(command);
  const argvs: (readonly string[])[] =
    analysis !== undefined && analysis.ok
      ? analysis.subcommands.map((s) => s.strippedArgv ?? s.argv ?? [])
      : [command.trim().split(/\s+/)];
  for (const entry of excluded) {
    const words = entry.replace(/(:\*|\s\*)$/, '').trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    if (argvs.some((argv) => words.every((w, i) => argv[i] === w))) return entry;
  }
  return undefined;
}

function newTaskId(): string {
  // randomUUID draws from a pre-filled entropy cache: cheaper per call than randomBytes.
  return `b${randomUUID().slice(0, 8)}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

function safeUnlink(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
