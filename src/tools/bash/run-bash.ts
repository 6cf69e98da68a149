/**
 * One Bash call from start to result: sandbox decision, start directory, scrubbed environment, a fresh shell in its
 * own process group writing to its own output file, then one of four endings — the command exits; the call is
 * aborted (the group is terminated); the timeout passes (moved to the background, or killed when it must not be);
 * or it was a background call from the start (returns at once, the task registry takes over).
 */
import { mkdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { ToolCallProgress, ToolResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { formatCount } from '../../tool/format-count.js';
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
import { withGitSafetyConfig } from './git-safety-env.js';
import { lastArgv, timeoutDisposition } from './command-facts.js';
import { recordedCwd, settleCwd, startCwd } from './cwd-tracking.js';
import { interpretExitCode } from './exit-code.js';
import { detectImageOutput } from './image-output.js';
import { collapseCarriageReturns, lastLines, readOutputTail, readOutputWindow } from '../shared/output-file.js';
import { detectSandbox } from './sandbox.js';
import { repositoryMakingBlocked, sandboxedGitNote, unsandboxedBecause } from './sandbox-exemptions.js';
import { buildSandboxPolicy } from './sandbox-policy.js';
import { wrapInSandbox, type SandboxLaunch } from './sandbox-runtime.js';
import { buildShellScript, mayChangeDirectory, mayChangeEnvironment, quote } from './shell-script.js';
import { applyShellState, persistEnvironment, shellDelta, shellStateOf, withShellDelta, type AppliedShellState } from './session-env.js';
import { anyEffect, NO_EFFECTS, stateEffects, type StateEffects } from './state-effects.js';
import { bashBinary } from './shell-binary.js';
import { loadBashParser, needsBashParser } from '../../permissions/bash/index.js';
import { ShellProcess, type ShellExit } from './shell-process.js';
import { getTaskRegistry } from '../shared/task-registry.js';
import { adoptShell, shellMarkerScope } from './shell-task.js';
import { randomUUID } from '../../tool/crypto.js';

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
    // Never started: nothing of its own to hand over, so not marked — the executor's interruption answer says more.
    return { data: { stdout: '', stderr: '', exitCode: null, interrupted: true, isError: true } };
  }

  // — sandbox: decided before anything starts; requested but unavailable means refused, never silently unsandboxed —
  const start = startCwd(context);
  if (start.resetTo !== undefined) notes.push(`Shell cwd was reset to ${start.resetTo}`);
  const { env } = buildChildEnv(settings.baseEnv ?? process.env, settings.bash);
  // Settings' env names are explicit: they are set even when a secret pattern would have scrubbed the inherited value.
  if (settings.env !== undefined) Object.assign(env, settings.env);
  const envFile = envFileFromEnv();
  // What earlier commands left (session-env.ts), prepared for a sandboxed or an unsandboxed run: entries that
  // sandboxed commands made apply only inside the sandbox. A background command starts from it but keeps nothing.
  const persisting = persistEnvironment(settings);
  // Which state the command's text can change (state-effects.ts): only that is kept, whatever the shell reports. (The
  // tool's call loads the parser already; a caller of runBash alone must not get an analysis that failed for want of it.)
  if (needsBashParser(input.command)) await loadBashParser();
  const prepare = (sandboxed: boolean) => {
    const childEnv = { ...env };
    const applied: AppliedShellState = persisting ? applyShellState(childEnv, shellStateOf(context), sandboxed, settings) : { functions: new Map(), withheld: 0 };
    // bash is found on the runtime's PATH (shell-process.ts); if that takes its bare name, the exec would search the
    // command's PATH, which an earlier command may have changed: not then.
    if (childEnv.PATH !== env.PATH && bashBinary({ PATH: env.PATH }) === 'bash') childEnv.PATH = env.PATH;
    // Last, so that nothing inherited or persisted outranks it.
    withGitSafetyConfig(childEnv);
    // The text is looked at only if it can change anything at all (a regular expression), then through the
    // analysis the permission engine made of it (cached); the variables are read back only if it can change one
    // (~0.4 ms of bash and parsing a short command).
    const effects: StateEffects =
      input.run_in_background !== true && ((persisting && mayChangeEnvironment(input.command, childEnv)) || mayChangeDirectory(input.command))
        ? stateEffects(input.command, new Set(applied.functions.keys()), start.cwd, env.HOME)
        : NO_EFFECTS;
    const captureFunctions = persisting && anyEffect(effects.functions);
    const capture = captureFunctions || (persisting && anyEffect(effects.variables));
    const script = { envFile, capture, captureFunctions, importedFunctions: [...applied.functions.keys()] };
    return { env: childEnv, applied, script, effects };
  };
  let prepared: ReturnType<typeof prepare> | undefined;
  let launch: SandboxLaunch | undefined;
  if (settings.sandbox?.enabled === true) {
    const outside = unsandboxedBecause(input, settings.sandbox);
    if (outside !== undefined) {
      notes.push(`(ran outside the sandbox: ${outside})`);
    } else {
      const availability = await detectSandbox();
      let reason = availability.available ? undefined : availability.reason;
      if (availability.available) {
        try {
          const tmp = sessionTempDirectory(context);
          env.TMPDIR = tmp;
          const policy = await buildSandboxPolicy(context.getAppState().toolPermissionContext, settings.sandbox, tmp, { envs: [settings.baseEnv, settings.env] });
          if (policy.refusal !== undefined) return result({ stdout: '', stderr: policy.refusal, exitCode: null, interrupted: false, isError: true, sandboxed: false });
          if (policy.incomplete !== undefined) notes.push(`(sandbox: ${policy.incomplete})`);
          const gitNote = sandboxedGitNote(input.command);
          if (gitNote !== undefined) notes.push(gitNote);
          prepared = prepare(true);
          const script = buildShellScript(input.command, prepared.script);
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

  if (launch === undefined) {
    const blocked = repositoryMakingBlocked(input.command, context.getAppState().toolPermissionContext, start.cwd);
    if (blocked !== undefined) return result({ stdout: '', stderr: blocked, exitCode: null, interrupted: false, isError: true, sandboxed: false });
    prepared = prepare(false);
  }
  const { applied } = prepared!;
  if (applied.withheld > 0) {
    notes.push(`(${applied.withheld} variable${applied.withheld > 1 ? 's or functions' : ' or function'} that sandboxed commands left ${applied.withheld > 1 ? 'were' : 'was'} not applied: this command ran outside the sandbox)`);
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
      env: prepared!.env,
      shellPath: env.PATH,
      outputFile,
      script: prepared!.script,
      launch,
      markerScope: shellMarkerScope(registry),
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
  // Through the command launcher the pid comes a moment later (launcher.ts); everything below may use it.
  await proc.started;
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
    adoptShell(registry, proc, {
      description: input.description,
      backgroundedBy: 'request',
      notifications,
      lifetimeMs: input.timeout ?? BACKGROUND_DEFAULT_LIFETIME_MS,
      outputChars: limit,
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

  // — foreground: exit, abort, timeout or a person's "to the background" (Ctrl+B), whichever comes first —
  const timeoutMs = input.timeout ?? timeoutLimits(settings).defaultMs;
  const signal = context.abortController.signal;
  let onAbort: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let withdraw: (() => void) | undefined;
  const ending = await new Promise<'exit' | 'abort' | 'timeout' | 'background'>((resolve) => {
    void proc.exited.then(() => resolve('exit'));
    onAbort = () => resolve('abort');
    // An abort during the awaits above (the first sandbox probe) has fired already: a listener would never hear it.
    if (signal.aborted) resolve('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    if (context.toolUseId !== undefined && backgroundTasksEnabled(settings)) {
      withdraw = registry.registerForeground(context.toolUseId, () => resolve('background'));
    }
  });
  withdraw?.();
  if (onAbort) signal.removeEventListener('abort', onAbort);
  if (timer) clearTimeout(timer);

  /** Hands the running process to the registry; the result shows the output so far and the task's id and file. */
  const toBackground = (by: 'timeout' | 'user', extra: Partial<BashOutput>): ToolResult<BashOutput> => {
    stopProgress();
    adoptShell(registry, proc, { description: input.description, backgroundedBy: by, notifications, lifetimeMs: BACKGROUND_DEFAULT_LIFETIME_MS, outputChars: limit });
    const partial = readOutputTail(outputFile, WINDOW_BYTES);
    const sofar = collapseCarriageReturns(partial.text);
    const shown = sofar.slice(-Math.min(limit, FAILURE_EXCERPT_CHARS));
    return result({
      stdout: partial.complete && shown.length === sofar.length ? shown : `[… earlier output in ${outputFile}]\n${shown}`,
      stderr: notes.join('\n'),
      exitCode: null,
      interrupted: false,
      isError: false,
      backgroundTaskId: id,
      outputFile,
      sandboxed,
      ...extra,
    });
  };

  if (ending === 'background' && proc.running) return toBackground('user', { backgroundedByUser: true });
  if (ending === 'timeout' && proc.running) {
    const disposition = timeoutDisposition(input.command, context);
    if (disposition.background) {
      notes.push(
        `Command did not complete within its ${seconds(timeoutMs)} timeout and was moved to the background. ` +
          backgroundLine(id, outputFile) +
          '. You will be notified when it ends; TaskOutput or Read on the file shows its output, TaskStop ends it.',
      );
      return toBackground('timeout', { timedOutAfterMs: timeoutMs, timeoutOutcome: 'moved_to_background' });
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
    if (exit.lost !== undefined) notes.push(`(${exit.lost})`);
    const interrupted = exit.killReason === 'abort';
    const killed = exit.killReason !== undefined;
    const interpretation =
      exit.code !== null && !killed
        ? interpretExitCode(input.command, exit.code, exit.code === 1 ? lastArgv(input.command) : undefined)
        : { isError: true };
    if (exit.killReason === 'output-limit') {
      notes.push(`Command was killed: its output passed the ${formatCount(exit.outputBytes)}-byte limit of the output file.`);
    }
    // A command cut short (abort, timeout, output cap, the launcher lost) left a half-made state: nothing of it is
    // kept, nor its directory. Otherwise only what its text can change (`effects`).
    const settled = !killed && exit.lost === undefined;
    const { effects, script, env: startEnv } = prepared!;
    if (exit.malformed && settled) notes.push('(the shell state records were written twice, so not by toolgate alone: nothing of them was kept)');
    const resetTo = settled ? settleCwd(context, recordedCwd(exit.finalCwd, effects.cwd)) : undefined;
    if (resetTo !== undefined) notes.push(`Shell cwd was reset to ${resetTo}`);
    let contextModifier: ToolResult<BashOutput>['contextModifier'];
    if (exit.capture !== undefined && settled && script.capture) {
      const capture = script.captureFunctions ? exit.capture : { start: exit.capture.start, exit: exit.capture.exit };
      const kept = shellDelta(capture, applied, { context, sandboxed, cwd: exit.finalCwd ?? start.cwd, effects, state: shellStateOf(context), startEnv });
      notes.push(...kept.notes);
      if (kept.delta !== undefined) contextModifier = withShellDelta(kept.delta);
    }
    const withState = (data: BashOutput): ToolResult<BashOutput> => {
      const base = result(data);
      return contextModifier ? { ...base, contextModifier } : base;
    };

    const window = readOutputWindow(outputFile, WINDOW_BYTES);
    if (exit.code === 0 && !killed) {
      const image = await detectImageOutput(outputFile, window.head, window.sizeBytes);
      if (image !== undefined) {
        safeUnlink(outputFile);
        if (image.note) notes.push(`(${image.note})`);
        return withState({
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
    return withState({
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
  // An interrupted command's result holds the output so far and says it was cut short: the executor keeps it.
  return data.interrupted ? { data, interrupted: true } : { data };
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
