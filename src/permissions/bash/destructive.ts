/**
 * Which shell commands may do what cannot be undone — the Bash tool's `isDestructive`, so that the one risk
 * classification (permissions/risk.ts) calls them destructive, the dialog draws them so and "always allow" takes a
 * second step on every face. Read from the engine's own analysis of the command (every subcommand, seen through
 * wrappers, `sudo`, `env`, `bash -c '…'`): a recursive `rm`, `find -delete`, `git reset --hard`, `git clean`,
 * `git push --force`/`--delete`/`+ref`/`--mirror`, `git branch -D`, `git stash drop`/`clear`, `git checkout -f`/`--`,
 * `git restore` of the work tree, `dd of=`, `mkfs*`, `shred`, `wipefs`. Only describes: what is allowed is still the
 * engine's decision. A command the analyser cannot read is not called destructive here (it asks anyway).
 */
import { analyzeBashCommand } from './analyze.js';

function base(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** Short options clustered (`-rf`) or long, up to `--`. */
function hasOption(args: readonly string[], shorts: string, longs: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a.startsWith('--')) {
      if (longs.some((l) => a === l || a.startsWith(`${l}=`))) return true;
    } else if (a.startsWith('-') && a.length > 1 && [...a.slice(1)].some((c) => shorts.includes(c))) return true;
  }
  return false;
}

/** git's subcommand and its arguments, past the global options. */
function gitCommand(args: readonly string[]): { sub: string; rest: readonly string[] } | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  const sub = args[i];
  return sub === undefined ? undefined : { sub, rest: args.slice(i + 1) };
}

function destructiveGit(args: readonly string[]): boolean {
  const git = gitCommand(args);
  if (git === undefined) return false;
  const { sub, rest } = git;
  switch (sub) {
    case 'reset':
      return rest.includes('--hard') || rest.includes('--merge') || rest.includes('--keep');
    case 'clean':
      return !hasOption(rest, 'n', ['--dry-run']);
    case 'push':
      return hasOption(rest, 'fd', ['--force', '--force-with-lease', '--force-if-includes', '--delete', '--mirror', '--prune']) || rest.some((a) => /^\+|^:/.test(a));
    case 'branch':
      return rest.some((a) => a === '-D' || (a.startsWith('-') && !a.startsWith('--') && a.includes('D'))) || (rest.includes('--delete') && rest.includes('--force'));
    case 'stash':
      return rest[0] === 'drop' || rest[0] === 'clear';
    case 'checkout':
      return hasOption(rest, 'f', ['--force']) || rest.includes('--') || rest.includes('.');
    case 'restore':
      return !rest.includes('--staged') || rest.includes('--worktree') || rest.includes('-W');
    default:
      return false;
  }
}

/** Whether one argv (a command name and its arguments) is destructive. */
export function isDestructiveArgv(argv: readonly string[]): boolean {
  const name = argv[0] === undefined ? '' : base(argv[0]);
  const args = argv.slice(1);
  if (name === 'rm') return hasOption(args, 'rR', ['--recursive']);
  if (name === 'find') return args.includes('-delete');
  if (name === 'git') return destructiveGit(args);
  if (name === 'dd') return args.some((a) => a.startsWith('of='));
  if (name === 'mkfs' || name.startsWith('mkfs.') || name === 'mke2fs' || name === 'shred' || name === 'wipefs') return true;
  return false;
}

/** The first subcommand of `command` that is destructive, as written; undefined when none is (or it cannot be read). */
export function destructiveSubcommand(command: string): string | undefined {
  let analysis;
  try {
    analysis = analyzeBashCommand(command);
  } catch {
    return undefined;
  }
  const seen = (subs: typeof analysis.subcommands): string | undefined => {
    for (const sub of subs) {
      if (sub.denyCandidates.some((argv) => isDestructiveArgv(argv))) return sub.text;
      const inner = sub.inner !== undefined ? seen(sub.inner) : undefined;
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return seen(analysis.subcommands);
}
