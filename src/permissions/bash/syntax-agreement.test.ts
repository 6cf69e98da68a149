/**
 * The class "commands the parser cannot parse, or parses with errors, are never auto-allowed" (issue 21), tried as a
 * class: thousands of generated commands (a fixed seed) go through the analysis and through real `bash -n`; every one
 * the analysis accepts, bash must accept too. Then named members through the decision: asked, even with allow rules
 * that would cover every word, and in bypassPermissions when a deny rule could hide behind them.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeBashCommand } from './analyze.js';
import { check } from './test-helpers/decision-harness.js';

const ATOMS = [
  'ls', 'pwd', 'rm', 'cat', 'echo', 'x', 'a=1', ';', ';;', ';&', ';;&', '&', '&&', '||', '|', '|&', '(', ')', '{', '}', '\n',
  'do', 'done', 'then', 'fi', 'esac', 'in', '!', 'if', 'else', 'for', 'case', 'while', 'until', 'select', 'function',
  'coproc', 'time', '>', '<', '>|', '&>', '<<<', '2>&1', '((', '))', '[[', ']]', '[', ']', '`', '"', "'", '#x', '\\',
  '\\ ', '\\\t', '$x', '${x}', '"$x"', "'a b'", '\\\n', '<<EOF\nbody\nEOF\n', '$((1))', '<(ls)', '\\#', 'a\\ b', '\\;',
  '\\&', '\t', "$'x'",
];

/** mulberry32: the same corpus on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(size: number): string[] {
  const next = random(21);
  const out = new Set<string>();
  while (out.size < size) {
    const parts: string[] = [];
    for (let i = 2 + Math.floor(next() * 4); i > 0; i--) parts.push(ATOMS[Math.floor(next() * ATOMS.length)]!);
    out.add(parts.join(' '));
  }
  return [...out];
}

/** `bash -n` on each command; one bash runs the loop, so only the syntax checks themselves are processes. */
function bashAcceptsAll(commands: readonly string[]): boolean[] {
  const loop = 'while IFS= read -r -d "" c; do bash -n -c "$c" 2>/dev/null; echo $?; done';
  // SHLVL 1: with its stdin a socket, a bash at level 1 would run ~/.bashrc (src/hooks/shell-level.ts).
  const out = spawnSync('bash', ['-c', loop], { input: commands.map((c) => `${c}\0`).join(''), encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, SHLVL: '1' } });
  const codes = out.stdout.trim().split('\n');
  expect(codes).toHaveLength(commands.length);
  return codes.map((code) => code === '0');
}
const bashAccepts = (command: string): boolean => bashAcceptsAll([command])[0]!;

describe('the parser and bash agree on what is a command', () => {
  it('every generated command the analysis accepts, bash accepts', () => {
    const accepted = corpus(6_000).filter((c) => analyzeBashCommand(c).ok);
    // Enough survive to make the check mean something (most random token soup is rejected by both).
    expect(accepted.length).toBeGreaterThan(300);
    const verdicts = bashAcceptsAll(accepted);
    expect(accepted.filter((_c, i) => !verdicts[i])).toEqual([]);
  }, 400_000); // one `bash -n` per accepted command: minutes on a loaded 2-core machine

  it.each([
    ['ls ;; pwd', ';; outside a case'],
    ['ls ;& pwd', 'syntax error'],
    ['(ls ;; pwd)', ';; outside a case'],
    ['if true; then ls ;; fi', ';; outside a case'],
    ['then ls', 'reserved word'],
    ['} x', 'reserved word'],
    ['ls && ]] x', 'reserved word'],
    ['time }', 'reserved word'],
    ['{ }', 'empty'],
    ['if true; then fi', 'empty'],
    ['while true; do done', 'empty'],
    ['ls > 2>&1', 'descriptor number'],
    ['cat <<< 2>&1', 'descriptor number'],
    ['ls >\npwd', 'next line'],
    ['ls | ! cat', 'inside a pipeline'],
    ['echo (ls)', 'where a word was expected'],
    ['time & ls', 'bare time'],
    ['in ` ` ls', 'read'],
    ['ls ;\n;; pwd', 'syntax error'],
    ['a=1\n coproc', 'reserved word'],
  ])('%j is a syntax error to bash, a parse error to the analysis (%s)', (command, why) => {
    const a = analyzeBashCommand(command);
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.reason).toContain(why);
    expect(bashAccepts(command)).toBe(false);
  });

  it.each([
    ['ls \\ #; rm -rf x', 'read'],
    ['echo\t\\\t#; rm x', 'read'],
    ['coproc ls', 'reserved word'],
    ['\\ ls', 'read'],
    // Two backtick substitutions read as one: "ls` `rm x" would hide the rm inside a word.
    ['echo `ls` `rm x`', 'read'],
  ])('%j is valid bash the parser misreads (%s): a parse error', (command, why) => {
    const a = analyzeBashCommand(command);
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.reason).toContain(why);
    expect(bashAccepts(command)).toBe(true);
  });

  it.each([
    'case x in a) ls ;; b) pwd ;& c) ;; esac',
    'f() { ls; }',
    'if true; then ls; else pwd; fi',
    'ls # a comment',
    'echo a#b',
    "echo 'a'#b",
    'echo a\\ b',
    'cat <<EOF | grep x\nbody\nEOF\nls',
    'time ls',
    'time -p ls',
    '! ls | cat',
    'ls 2>&1 >/dev/null',
    '> out then',
    'echo $((1 + 2)) ${x:-y}',
    'ls \\\n  -la',
    // Blanks a string or an expansion holds, and a closing quote that carries them.
    'echo "$(tr -d " ")"',
    'echo "${x:- }" "a  b"',
    'while [ "$(ps -o pgid= -p $p | tr -d " ")" = "$(ps -o pgid= -p $$ | tr -d " ")" ]; do sleep 0.01; done',
  ])('%j still parses (bash agrees)', (command) => {
    expect(bashAccepts(command)).toBe(true);
    expect(analyzeBashCommand(command)).toMatchObject({ ok: true });
  });
});

describe('what the parser cannot read is never allowed', () => {
  it.each(['ls ;; pwd', 'ls \\ #; pwd', 'then ls', '{ }', 'ls > 2>&1', 'ls | ! cat'])('%j asks, even when allow rules cover every word', (command) => {
    expect(check(command).behavior).toBe('ask');
    expect(check(command, { allow: ['ls *', 'ls', 'pwd', 'then *', 'cat'] }).behavior).toBe('ask');
  });

  it('an `rm` hidden behind a comment bash does not see is denied or asked, never allowed', () => {
    const d = check('ls \\ #; rm -rf x', { deny: ['rm *'] });
    expect(d.behavior === 'deny' || d.decisionReason?.layer === 'askRule').toBe(true);
  });
});
