/**
 * Commands that must not be cut halfway: a user interrupt (a new message, Esc) lets them finish instead of killing
 * them — the Bash tool's `interruptBehavior(input)` is `block` for them. A commit, merge or rebase stopped midway leaves
 * the repository half-changed (a lock file, a rebase in progress); an install stopped midway, a half-written
 * node_modules or site-packages. An explicit abort (the runtime disposed, SIGTERM, a second Ctrl+C) still ends them:
 * `block` is about a person changing their mind, not about shutdown (execution/abort-reasons.ts).
 *
 * Written as Bash permission rules and matched as deny rules are — through wrappers (`sudo`, `env`, `timeout`),
 * program options before the subcommand (`git -C repo commit`, `npm --prefix x install`) and `bash -c '…'` — so the
 * rule language has one matcher. A command that cannot be parsed is cancelled as before (nothing is known about it).
 */
import { analyzeBashCommand, matchBashRuleContent, type SimpleCommand } from '../../permissions/bash/index.js';

export const UNINTERRUPTIBLE_COMMANDS: readonly string[] = [
  ...['commit', 'merge', 'rebase', 'cherry-pick', 'revert', 'am', 'pull', 'stash'].map((s) => `git ${s}:*`),
  ...['install', 'i', 'ci', 'add', 'update', 'uninstall', 'remove', 'rm', 'dedupe', 'prune'].map((s) => `npm ${s}:*`),
  ...['install', 'i', 'add', 'update', 'up', 'remove', 'rm'].map((s) => `pnpm ${s}:*`),
  'yarn',
  ...['install', 'add', 'upgrade', 'remove'].map((s) => `yarn ${s}:*`),
  ...['install', 'i', 'add', 'update', 'remove'].map((s) => `bun ${s}:*`),
  ...['pip', 'pip3', 'python -m pip', 'python3 -m pip', 'uv pip'].flatMap((p) => [`${p} install:*`, `${p} uninstall:*`]),
  ...['sync', 'add', 'remove'].map((s) => `uv ${s}:*`),
  ...['install', 'add', 'remove', 'update', 'lock'].map((s) => `poetry ${s}:*`),
  'cargo install:*',
  'go install:*',
  'gem install:*',
  'bundle install:*',
  ...['install', 'require', 'update', 'remove'].map((s) => `composer ${s}:*`),
  ...['apt', 'apt-get'].flatMap((p) => ['install', 'remove', 'purge', 'upgrade', 'dist-upgrade', 'full-upgrade', 'autoremove'].map((s) => `${p} ${s}:*`)),
  'dpkg -i:*',
  'dpkg --install:*',
  ...['install', 'upgrade', 'uninstall', 'reinstall'].map((s) => `brew ${s}:*`),
];

/**
 * The rules by their program (each is a literal prefix, so only a command whose first word is that program can match
 * it; interrupt-behavior.test.ts holds every rule to that). Compiling all of them to judge one command was ~5 ms of
 * the first Bash call of every process.
 */
const RULES_BY_PROGRAM = new Map<string, string[]>();
for (const rule of UNINTERRUPTIBLE_COMMANDS) {
  const program = rule.split(' ')[0]!.replace(/:\*$/, '');
  RULES_BY_PROGRAM.set(program, [...(RULES_BY_PROGRAM.get(program) ?? []), rule]);
}

/** The first subcommand of `command` that must not be cut halfway, as written; undefined when there is none. */
export function uninterruptibleSubcommand(command: string): string | undefined {
  let analysis: ReturnType<typeof analyzeBashCommand>;
  try {
    analysis = analyzeBashCommand(command);
  } catch {
    return undefined; // the parser is not loaded yet (the executor asks again once it is) or failed
  }
  if (!analysis.ok) return undefined;
  const visit = (subs: readonly SimpleCommand[]): string | undefined => {
    for (const sub of subs) {
      const views = [...sub.denyCandidates, ...(sub.strippedArgv ? [sub.strippedArgv] : [])];
      if (views.some((argv) => (RULES_BY_PROGRAM.get(argv[0] ?? '') ?? []).some((rule) => matchBashRuleContent(rule, argv)))) return sub.text;
      const inner = sub.inner ? visit(sub.inner) : undefined;
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return visit(analysis.subcommands);
}
