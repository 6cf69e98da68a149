import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeBashCommand, loadBashParser, matchBashRuleContent, type SimpleCommand } from '../../permissions/bash/index.js';
import { compileBashRule } from '../../permissions/bash/rule-match.js';
import { UNINTERRUPTIBLE_COMMANDS, uninterruptibleSubcommand } from './interrupt-behavior.js';

beforeAll(async () => {
  await loadBashParser();
});

/** The answer without the index: every rule against every view. */
function bruteForce(command: string): string | undefined {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) return undefined;
  const visit = (subs: readonly SimpleCommand[]): string | undefined => {
    for (const sub of subs) {
      const views = [...sub.denyCandidates, ...(sub.strippedArgv ? [sub.strippedArgv] : [])];
      if (views.some((argv) => UNINTERRUPTIBLE_COMMANDS.some((rule) => matchBashRuleContent(rule, argv)))) return sub.text;
      const inner = sub.inner ? visit(sub.inner) : undefined;
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return visit(analysis.subcommands);
}

describe('uninterruptibleSubcommand', () => {
  it('indexes each rule by a first word it can only match literally', () => {
    for (const rule of UNINTERRUPTIBLE_COMMANDS) {
      const compiled = compileBashRule(rule);
      expect(compiled.kind === 'prefix' || compiled.kind === 'exact', rule).toBe(true);
      const words = compiled.kind === 'prefix' || compiled.kind === 'exact' ? compiled.words : [];
      expect(words[0], rule).toBe(rule.split(' ')[0]!.replace(/:\*$/, ''));
    }
  });

  it('finds what every rule against every view finds', () => {
    const commands = [
      'git commit -m x', 'git -C repo commit', 'sudo git rebase main', 'env A=1 npm install', 'timeout 5 pnpm add x',
      "bash -c 'yarn'", 'yarn', 'yarn test', 'python3 -m pip install x', 'uv pip install x', 'apt-get install -y jq',
      'dpkg -i x.deb', 'brew upgrade', 'sleep 1', 'git status', '/usr/bin/git commit', 'echo git commit',
      'ls && cargo install ripgrep', 'npm run build', 'cd x; git pull --rebase',
    ];
    for (const command of commands) expect(uninterruptibleSubcommand(command), command).toBe(bruteForce(command));
    expect(uninterruptibleSubcommand('sudo git rebase main')).toBe('sudo git rebase main');
    expect(uninterruptibleSubcommand('ls && cargo install ripgrep')).toBe('cargo install ripgrep');
    expect(uninterruptibleSubcommand('sleep 1')).toBeUndefined();
  });
});
