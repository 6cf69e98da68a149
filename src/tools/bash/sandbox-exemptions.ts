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
import type { MatchWord } from '../../permissions/bash/rule-match.js';
import type { SimpleCommand } from '../../permissions/bash/types.js';
import { workingDirectories } from '../../permissions/paths.js';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import type { SandboxSettings } from './bash-settings.js';
import { excludedCommand } from './command-facts.js';
import { sandboxedCommandsWriting } from './sandbox-runtime.js';

function safeAnalyze(command: string): ReturnType<typeof analyzeBashCommand> | undefined {
  try {
    return analyzeBashCommand(command);
  } catch {
    return undefined;
  }
}

const isGit = (name: MatchWord | undefined) => name !== undefined && name.literal && (name.value === 'git' || name.value.endsWith('/git'));

/** Whether a subcommand runs git, seen through wrappers (`env`, `sudo`, `bash -c '…'`, `xargs`). */
function runsGit(sub: SimpleCommand): boolean {
  return sub.denyWords.some((view) => isGit(view[0]));
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

// — git that makes a repository while sandboxed commands run —

/** git's global options that take the next word as their value. */
const GLOBAL_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source']);
/** Subcommands that populate submodules (making their `.git`) when asked to recurse. */
const RECURSING = new Set(['checkout', 'switch', 'reset', 'read-tree', 'restore', 'pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'stash', 'am']);

/**
 * Whether a git invocation (`words` starts with git) may make a repository or a `.git`: `init`, `clone`, `submodule`
 * (but `status`, `summary`), `worktree add|move|repair`, a command that recurses into submodules — and, failing
 * closed, a non-literal subcommand or a `-c`/`--config-env` (an alias can be anything).
 */
function gitMakesRepository(words: readonly MatchWord[]): boolean {
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) return true;
    if (!w.value.startsWith('-')) break;
    if (w.value === '-c' || w.value.startsWith('--config-env') || w.value.startsWith('--exec-path')) return true;
    if (GLOBAL_WITH_VALUE.has(w.value)) i++;
  }
  const name = words[i];
  if (name === undefined) return false;
  const rest = words.slice(i + 1);
  const firstWord = rest.find((w) => !w.literal || !w.value.startsWith('-'));
  switch (name.value) {
    case 'init':
    case 'clone':
      return true;
    case 'submodule':
      return firstWord !== undefined && (!firstWord.literal || !['status', 'summary'].includes(firstWord.value));
    case 'worktree':
      return firstWord !== undefined && (!firstWord.literal || ['add', 'move', 'repair'].includes(firstWord.value));
    default:
      return RECURSING.has(name.value) && rest.some((w) => !w.literal || /^--recurse-submodules(=(?!no$|false$|0$).*)?$/.test(w.value));
  }
}

/** The first subcommand of `command` that runs git which may make a repository or a `.git`, if any. */
export function repositoryMaker(command: string): string | undefined {
  const analysis = safeAnalyze(command);
  if (analysis === undefined) return undefined;
  for (const sub of flattenSubcommands(analysis.subcommands)) {
    if (sub.denyWords.some((view) => isGit(view[0]) && gitMakesRepository(view))) return sub.text;
  }
  return undefined;
}

/**
 * Why a call that runs outside the sandbox must not run now, if it must not: it makes a repository (or a submodule's
 * `.git`) while sandboxed commands that may write there are running. A sandboxed command's mounts are fixed when it
 * starts; the look that keeps every `.git` read-only runs only then, so a repository made afterwards on the host —
 * an approved `git init`, `git clone`, `git submodule update` — would be writable to a background command already
 * running: it could plant the hooks the person's next `git commit` there runs.
 */
export function repositoryMakingBlocked(command: string, ctx: ToolPermissionContext, cwd: string): string | undefined {
  const maker = repositoryMaker(command);
  if (maker === undefined) return undefined;
  const running = sandboxedCommandsWriting([cwd, ...workingDirectories(ctx)]);
  if (running.length === 0) return undefined;
  const many = running.length > 1;
  const listed = running.slice(0, 3).map((c) => `"${shorten(c)}"`).join(', ') + (running.length > 3 ? ', …' : '');
  return (
    `The command was not run: "${shorten(maker)}" makes a repository, and ${running.length} sandboxed command${many ? 's' : ''} ` +
    `still running (${listed}) could write into it: the sandbox keeps a repository read-only only for commands started after it exists. ` +
    `Stop ${many ? 'them' : 'it'} (TaskStop) or wait for ${many ? 'them' : 'it'} to end, then run this command again.`
  );
}
