/**
 * The Bash tool (Claude Code 2.1.328's fields and result texts). The process side lives in `run-bash.ts` and its
 * helpers; read-only classification — hence parallel execution — comes from the permission engine's Bash analyser.
 */
import path from 'node:path';
import * as z from 'zod';
import { destructiveSubcommand, isReadOnlyCommand, loadBashParser, needsBashParser } from '../../permissions/bash/index.js';
import { workingDirectories } from '../../permissions/paths.js';
import { buildTool } from '../../tool/build-tool.js';
import { distrustProgramsIn } from '../../tool/executable-path.js';
import type { ValidationResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import {
  BACKGROUND_MAX_LIFETIME_MS,
  ENV_OUTPUT_CHARS,
  backgroundTasksEnabled,
  timeoutLimits,
} from './bash-settings.js';
import { mapBashOutput, type BashOutput } from './bash-output.js';
import { BASH_DESCRIPTION_FIELD, BASH_TOOL_NAME, bashPrompt } from './prompt.js';
import type { BashProgress } from './run-bash.js';
import { uninterruptibleSubcommand } from './interrupt-behavior.js';
import { repositoryWriter, unsandboxedBecause } from './sandbox-exemptions.js';
import { detectSandbox } from './sandbox.js';
import { buildSandboxPolicy } from './sandbox-policy.js';
import { persistedStateAsk, persistedStateConcern } from './state-review.js';
import { leadingSleep, leadingSleepMessage } from './leading-sleep.js';
import { runSimulatedSed, sedPermissionPreview } from './sed-simulation.js';

export const bashInputSchema = z.strictObject({
  command: z.string().describe('The command to execute'),
  timeout: z.number().optional().describe('Optional timeout in milliseconds (max 600000)'),
  description: z.string().optional().describe(BASH_DESCRIPTION_FIELD),
  run_in_background: z
    .boolean()
    .optional()
    .describe('Set to true to run this command in the background. You are notified when it ends; TaskOutput or Read on the output file shows its output.'),
  dangerouslyDisableSandbox: z
    .boolean()
    .optional()
    .describe('Set this to true to dangerously override sandbox mode and run the command without sandboxing (always asks for permission).'),
});

export type BashToolInput = z.infer<typeof bashInputSchema>;

function readOnly(input: BashToolInput): boolean {
  try {
    return isReadOnlyCommand(input.command);
  } catch {
    return false;
  }
}

export function validateBashInput(input: BashToolInput, context: ToolUseContext): ValidationResult {
  const settings = context.options.settings;
  if (input.command.trim() === '') return { result: false, message: 'The command is empty.', errorCode: 1 };
  if (input.command.includes('\0')) {
    return { result: false, message: 'The command contains a NUL byte, which cannot be passed to bash. Remove it and try again.', errorCode: 2 };
  }
  if (input.timeout !== undefined) {
    if (!Number.isFinite(input.timeout) || input.timeout <= 0) {
      return { result: false, message: `timeout must be a positive number of milliseconds (got ${input.timeout}).`, errorCode: 3 };
    }
    const max = input.run_in_background === true ? BACKGROUND_MAX_LIFETIME_MS : timeoutLimits(settings).maxMs;
    if (input.timeout > max) {
      const hint = input.run_in_background === true ? '' : ' For longer commands use run_in_background: true.';
      return { result: false, message: `timeout ${input.timeout} ms is beyond the maximum of ${max} ms.${hint}`, errorCode: 3 };
    }
  }
  if (input.run_in_background === true && !backgroundTasksEnabled(settings)) {
    return { result: false, message: 'Background tasks are disabled in this session; run the command without run_in_background.', errorCode: 4 };
  }
  if (input.dangerouslyDisableSandbox === true && settings.sandbox?.enabled === true && settings.sandbox.allowUnsandboxedCommands === false) {
    return {
      result: false,
      message: 'Running outside the sandbox is not allowed by the settings (sandbox.allowUnsandboxedCommands: false).',
      errorCode: 5,
    };
  }
  // As the seeds have it: refused only when a tool that waits for a condition (Monitor) is in the pool, and never for
  // a background run. Found by trait, not by name.
  const monitor = input.run_in_background === true ? undefined : context.options.tools.find((t) => t.waitsFor === 'condition');
  const sleep = monitor === undefined ? undefined : leadingSleep(input.command);
  if (monitor !== undefined && sleep !== undefined) {
    const wakeup = context.options.tools.find((t) => t.waitsFor === 'time')?.name;
    return { result: false, message: leadingSleepMessage(sleep, { monitor: monitor.name, wakeup }), errorCode: 10 };
  }
  return { result: true };
}

/** True when this call will run inside a working sandbox and the settings let that stand in for a prompt. */
async function runsSandboxed(input: BashToolInput, context: ToolUseContext): Promise<boolean> {
  const sandbox = context.options.settings.sandbox;
  if (sandbox?.enabled !== true || sandbox.autoAllowBashIfSandboxed === false) return false;
  // A git command that writes the repository is never approved for being sandboxed: it runs outside (or, when
  // nothing may run outside, fails inside), and the engine decides it like any other command.
  if (unsandboxedBecause(input, sandbox) !== undefined || repositoryWriter(input.command) !== undefined) return false;
  const permissions = context.getAppState().toolPermissionContext;
  // Registered before the first probe: bwrap and socat are never taken from a folder sandboxed commands may write.
  distrustProgramsIn(workingDirectories(permissions));
  if (!(await detectSandbox()).available) return false;
  if (readOnly(input)) return true;
  // The sandbox stands in for a prompt only while it can vouch for what it protects: when the look for repositories
  // stopped short (a tree past its limit — which a command can grow on purpose — or an index it cannot read), a
  // repository it did not see would be writable, so the command asks instead.
  const settings = context.options.settings;
  const policy = await buildSandboxPolicy(permissions, sandbox, path.join(context.options.sessionDir, 'tmp'), { envs: [settings.baseEnv, settings.env] });
  return policy.incomplete === undefined;
}

export const BashTool = buildTool<typeof bashInputSchema, BashOutput, BashProgress>({
  name: BASH_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'shell', commandField: 'command' },
  searchHint: 'execute shell commands',
  inputSchema: bashInputSchema,
  // Static, so read from TOOLGATE_BASH_MAX_OUTPUT_LENGTH / BASH_MAX_OUTPUT_LENGTH at load; the per-call inline limit
  // (settings.bashOutputMaxChars) is applied by the tool itself, which never returns more than it.
  maxResultSizeChars: ENV_OUTPUT_CHARS,
  strict: true,
  prompt: async (options) => bashPrompt({ persistEnvironment: options?.settings?.bash?.persistEnvironment !== false }),
  userFacingName: () => BASH_TOOL_NAME,
  isReadOnly: readOnly,
  isConcurrencySafe: readOnly,
  // rm -r, git reset --hard, git push --force, dd, mkfs…: the engine's reading of the command (permissions/bash/destructive.ts).
  isDestructive: (input) => destructiveSubcommand(input.command) !== undefined,
  // A commit, rebase or install is not cut halfway by a user interrupt; it finishes (interrupt-behavior.ts).
  interruptBehavior: (input) => (uninterruptibleSubcommand(input.command) !== undefined ? 'block' : 'cancel'),
  toAutoClassifierInput: (input) => input.command,
  validateInput: async (input, context) => validateBashInput(input, context),
  checkPermissions: async (input, context) => {
    if (input.dangerouslyDisableSandbox === true) {
      const reason = 'The command asks to run outside the OS sandbox (dangerouslyDisableSandbox: true).';
      return { behavior: 'ask', message: reason, decisionReason: { layer: 'toolCheck', reason } };
    }
    if (await runsSandboxed(input, context)) {
      const reason = 'runs inside the OS sandbox (sandbox.autoAllowBashIfSandboxed)';
      return { behavior: 'allow', updatedInput: input, sandboxAutoAllow: true, decisionReason: { layer: 'toolCheck', reason } };
    }
    // What earlier commands left is part of what this one runs (state-review.ts).
    const sandbox = context.options.settings.sandbox;
    const concern = persistedStateConcern(input.command, context, sandbox?.enabled === true && unsandboxedBecause(input, sandbox) === undefined);
    if (concern !== undefined) return persistedStateAsk(concern);
    return { behavior: 'allow', updatedInput: input };
  },
  // call() is not given its tool_use id; the executor stamps progress events with it. The command's parse decides
  // what it may do at a timeout (move to the background only if parseable): load the parser even when a caller
  // runs the tool without the permission engine (false at once when it is loaded or the command is plain).
  // A `sed -i` the engine can simulate is shown at the prompt as the edit it makes, and written as previewed.
  permissionPreview: async (input, context) => {
    if (needsBashParser(input.command)) await loadBashParser();
    return sedPermissionPreview(input.command, context);
  },
  call: async (input, context, _canUseTool, _parentMessage, onProgress) => {
    if (needsBashParser(input.command)) await loadBashParser();
    const simulated = await runSimulatedSed(input.command, context);
    if (simulated !== undefined) return { data: simulated };
    // Loaded at the first run: a process that only judges calls (toolgate hook, check) never starts a shell.
    const { runBash } = await import('./run-bash.js');
    return runBash(input, context, '', onProgress);
  },
  mapToolResultToToolResultBlockParam: mapBashOutput,
  renderToolUseMessage: (input) => {
    const command = (input.command ?? '').replace(/\s+/g, ' ').trim();
    const shown = command.length > 160 ? `${command.slice(0, 159)}…` : command;
    const flags = [input.run_in_background ? 'background' : '', input.dangerouslyDisableSandbox ? 'unsandboxed' : '']
      .filter(Boolean)
      .join(', ');
    return flags ? `${shown} (${flags})` : shown;
  },
  loadViews: () => import('./render.js').then((m) => m.bashViews),
  renderToolResultMessage: (output) => {
    if (output.backgroundTaskId !== undefined) return `Running in background: ${output.backgroundTaskId}`;
    if (output.isImage) return '[image]';
    const lines = output.stdout.trimEnd().split('\n');
    const head = lines.slice(0, 5).join('\n');
    return lines.length > 5 ? `${head}\n… (${lines.length - 5} more lines)` : head || '(no output)';
  },
});

