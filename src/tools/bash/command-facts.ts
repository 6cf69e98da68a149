/**
 * What the Bash analyser says about a command that decides how it is run: whether a timeout may move it to the
 * background, which `sandbox.excludedCommands` entry it starts with, and its last simple command (for exit codes
 * that mean "no match"). A command the analyser cannot parse gets the careful answer.
 */
import { analyzeBashCommand } from '../../permissions/bash/index.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { backgroundTasksEnabled } from './bash-settings.js';

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

export function lastArgv(command: string): readonly string[] | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined || !analysis.ok) return undefined;
  const last = analysis.subcommands[analysis.subcommands.length - 1];
  return last?.strippedArgv ?? last?.argv ?? undefined;
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
