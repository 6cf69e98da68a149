/**
 * Which calls run outside the sandbox although it is enabled, and why (the note their result carries): the model's
 * `dangerouslyDisableSandbox` (always asked), `sandbox.excludedCommands`, and git commands that write the repository.
 * The sandbox keeps every repository's metadata read-only (sandbox-protected-paths.ts), so `git commit`, `git fetch`,
 * `git checkout`… cannot work inside it; they run on the host instead, and are never approved merely for being
 * sandboxed (`autoAllowBashIfSandboxed`): the engine decides them like any other command — an allow rule or a person
 * (or bypassPermissions mode, which lets `dangerouslyDisableSandbox` through just the same). Only git runs outside
 * this way: a command that also runs another program stays inside. With `sandbox.allowUnsandboxedCommands: false`
 * they stay inside too, where their writes to the repository fail.
 */
import { analyzeBashCommand } from '../../permissions/bash/analyze.js';
import { classifySubcommand } from '../../permissions/bash/classify.js';
import { flattenSubcommands } from '../../permissions/bash/read-only.js';
import type { SimpleCommand } from '../../permissions/bash/types.js';
import type { SandboxSettings } from './bash-settings.js';
import { excludedCommand } from './command-facts.js';

function safeAnalyze(command: string): ReturnType<typeof analyzeBashCommand> | undefined {
  try {
    return analyzeBashCommand(command);
  } catch {
    return undefined;
  }
}

/** Whether a subcommand runs git, seen through wrappers (`env`, `sudo`, `bash -c '…'`, `xargs`). */
function runsGit(sub: SimpleCommand): boolean {
  return sub.denyWords.some((view) => {
    const name = view[0];
    return name !== undefined && name.literal && (name.value === 'git' || name.value.endsWith('/git'));
  });
}

/**
 * The first subcommand that runs git other than read-only (as the engine classifies it), if any. A command whose git
 * is hidden from the parser (a script, `make`) is not found: it runs sandboxed, and its writes to the repository fail.
 */
export function repositoryWriter(command: string): string | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined) return undefined;
  for (const sub of flattenSubcommands(analysis.subcommands)) if (runsGit(sub) && !classifySubcommand(sub).readOnly) return sub.text;
  return undefined;
}

/**
 * Where a git command that writes the repository runs: outside the sandbox when the command is git and nothing else
 * but read-only or neutral commands (`cd`, `echo`, `ls`); inside, where its writes to the repository fail, when it
 * also runs another program — approving `git commit && make` must not take `make` out of the sandbox.
 */
function gitWriterPlacement(command: string): { outside: string } | { inside: string } | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined || !analysis.ok) return undefined;
  let writer: string | undefined;
  let other: string | undefined;
  for (const sub of flattenSubcommands(analysis.subcommands)) {
    if (sub.inner !== undefined) continue; // judged by the commands inside
    if (runsGit(sub)) {
      if (!classifySubcommand(sub).readOnly) writer ??= sub.text;
    } else if (sub.unsafeReason !== undefined || !classifySubcommand(sub).readOnly) other ??= sub.text;
  }
  if (writer === undefined) return undefined;
  return other === undefined ? { outside: writer } : { inside: writer };
}

const shorten = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** Why the call runs outside the enabled sandbox (the note for its result), or undefined when it runs inside. */
export function unsandboxedBecause(input: { command: string; dangerouslyDisableSandbox?: boolean }, sandbox: SandboxSettings): string | undefined {
  if (input.dangerouslyDisableSandbox === true) return 'dangerouslyDisableSandbox';
  const excluded = excludedCommand(input.command, sandbox.excludedCommands);
  if (excluded !== undefined) return `"${excluded}" is in sandbox.excludedCommands`;
  if (sandbox.allowUnsandboxedCommands === false) return undefined;
  const git = gitWriterPlacement(input.command);
  if (git !== undefined && 'outside' in git) return `"${shorten(git.outside)}" writes the repository, whose metadata the sandbox keeps read-only`;
  return undefined;
}

/** For a sandboxed call: the note when git in it writes the repository and so will fail there. */
export function sandboxedGitNote(command: string): string | undefined {
  const git = gitWriterPlacement(command);
  if (git === undefined || !('inside' in git)) return undefined;
  return `(sandbox: "${shorten(git.inside)}" writes the repository, which the sandbox keeps read-only; run that git command in a call of its own to have it run outside the sandbox)`;
}
