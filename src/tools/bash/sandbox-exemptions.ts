/**
 * Which calls run outside the sandbox although it is enabled, and why (the note their result carries): the model's
 * `dangerouslyDisableSandbox` (always asked), `sandbox.excludedCommands`, and git commands that write the repository.
 * The sandbox keeps every repository's metadata read-only (sandbox-protected-paths.ts), so `git commit`, `git fetch`,
 * `git checkout`… cannot work inside it; they run on the host instead, and are never approved merely for being
 * sandboxed (`autoAllowBashIfSandboxed`): the engine decides them like any other command — an allow rule or a person.
 * With `sandbox.allowUnsandboxedCommands: false` they stay inside, where their writes to the repository fail.
 */
import { analyzeBashCommand } from '../../permissions/bash/analyze.js';
import { classifySubcommand } from '../../permissions/bash/classify.js';
import { flattenSubcommands } from '../../permissions/bash/read-only.js';
import type { SandboxSettings } from './bash-settings.js';

function safeAnalyze(command: string): ReturnType<typeof analyzeBashCommand> | undefined {
  try {
    return analyzeBashCommand(command);
  } catch {
    return undefined;
  }
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

/**
 * The first subcommand that runs git other than read-only (as the engine classifies it), seen through wrappers
 * (`env`, `sudo`, `bash -c '…'`, `xargs`), if any. A command whose git is hidden from the parser (a script, `make`)
 * is not found: it runs sandboxed, and its writes to the repository fail there.
 */
export function repositoryWriter(command: string): string | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined) return undefined;
  for (const sub of flattenSubcommands(analysis.subcommands)) {
    const runsGit = sub.denyWords.some((view) => {
      const name = view[0];
      return name !== undefined && name.literal && (name.value === 'git' || name.value.endsWith('/git'));
    });
    if (runsGit && !classifySubcommand(sub).readOnly) return sub.text;
  }
  return undefined;
}

/** Why the call runs outside the enabled sandbox (the note for its result), or undefined when it runs inside. */
export function unsandboxedBecause(input: { command: string; dangerouslyDisableSandbox?: boolean }, sandbox: SandboxSettings): string | undefined {
  if (input.dangerouslyDisableSandbox === true) return 'dangerouslyDisableSandbox';
  const excluded = excludedCommand(input.command, sandbox.excludedCommands);
  if (excluded !== undefined) return `"${excluded}" is in sandbox.excludedCommands`;
  if (sandbox.allowUnsandboxedCommands === false) return undefined;
  const writer = repositoryWriter(input.command);
  if (writer !== undefined) {
    const shown = writer.length > 80 ? `${writer.slice(0, 79)}…` : writer;
    return `"${shown}" writes the repository, whose metadata the sandbox keeps read-only`;
  }
  return undefined;
}
