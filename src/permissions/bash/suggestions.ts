/**
 * A rule that would allow a subcommand, in the form the matcher reads (`npm run test:*`), to show a user or to
 * name in a headless denial. Dangerous commands get an exact rule rather than a prefix that would allow too much.
 */
import type { PermissionRuleValue } from '../../tool/permission-types.js';
import type { MatchWord } from './rule-match.js';

const WITH_SUBCOMMAND = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'docker', 'kubectl', 'pip', 'pip3', 'poetry', 'uv', 'gh',
  'terraform', 'brew', 'apt', 'apt-get', 'dotnet', 'mvn', 'gradle', './gradlew', 'deno', 'make', 'just', 'nx', 'turbo',
  'rustup', 'conda', 'helm', 'composer', 'bundle', 'rake', 'mix', 'swift', 'flutter', 'dart', 'pytest', 'python', 'python3',
]);
const RUNNERS = new Set(['run', 'exec', 'run-script', 'x', 'dlx', '-m']);
const EXACT_ONLY = new Set(['rm', 'rmdir', 'sudo', 'doas', 'su', 'bash', 'sh', 'zsh', 'dash', 'eval', 'exec', 'dd', 'mkfs', 'chmod', 'chown', 'kill', 'pkill', 'killall', 'shutdown', 'reboot', 'curl', 'wget', 'ssh', 'scp', 'env', 'xargs', 'find']);

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A suggested rule content for these (allow-stripped) words, or undefined when none is sensible. */
export function suggestRuleContent(words: readonly MatchWord[]): string | undefined {
  const literal: string[] = [];
  for (const w of words) {
    if (!w.literal) break;
    literal.push(w.value);
  }
  const name = literal[0];
  if (name === undefined || /^[A-Za-z_][A-Za-z0-9_]*=/.test(name)) return undefined;
  if (EXACT_ONLY.has(name)) return literal.length === words.length ? literal.map(quote).join(' ') : undefined;
  const prefix = [name];
  const next = literal[1];
  if (WITH_SUBCOMMAND.has(name) && next !== undefined && !next.startsWith('-')) {
    prefix.push(next);
    const third = literal[2];
    if (RUNNERS.has(next) && third !== undefined && !third.startsWith('-')) prefix.push(third);
  } else if (WITH_SUBCOMMAND.has(name) && next === '-m' && literal[2] !== undefined) {
    prefix.push(next, literal[2]);
  }
  return `${prefix.map(quote).join(' ')}:*`;
}

export function suggestionsFor(wordLists: readonly (readonly MatchWord[])[]): PermissionRuleValue[] {
  const out: PermissionRuleValue[] = [];
  const seen = new Set<string>();
  for (const words of wordLists) {
    const content = suggestRuleContent(words);
    if (content === undefined || seen.has(content)) continue;
    seen.add(content);
    out.push({ toolName: 'Bash', ruleContent: content });
    if (out.length >= 5) break;
  }
  return out;
}
