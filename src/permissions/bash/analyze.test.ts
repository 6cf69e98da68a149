import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeBashCommand } from './analyze.js';
import { flattenSubcommands } from './read-only.js';
import type { SimpleCommand } from './types.js';
import { loadBashParser } from './parser.js';

// The analysis is synchronous once the parser is loaded (the engine loads it before judging a shell call).
await loadBashParser();

const names = (command: string): string[] => {
  const a = analyzeBashCommand(command);
  return [...flattenSubcommands(a.subcommands)].filter((s) => s.kind === 'command').map((s) => s.argv?.[0] ?? '?').sort();
};

describe('splitting into subcommands', () => {
  const cases: [string, string[]][] = [
    ['a && b || c; d | e |& f & g', ['a', 'b', 'c', 'd', 'e', 'f', 'g']],
    ['a\nb\n\nc', ['a', 'b', 'c']],
    ['(a; b)', ['a', 'b']],
    ['{ a; b; }', ['a', 'b']],
    ['x $(a) `b`', ['a', 'b', 'x']],
    ['echo "$(a "$(b)")"', ['a', 'b', 'echo']],
    ['cat <(a) >(b)', ['a', 'b', 'cat']],
    ['if a; then b; elif c; then d; else e; fi', ['a', 'b', 'c', 'd', 'e']],
    ['for i in $(a); do b; done', ['a', 'b']],
    ['while a; do b; done', ['a', 'b']],
    ['until a; do b; done', ['a', 'b']],
    ['case x in y) a;; *) b;; esac', ['a', 'b']],
    ['f() { a; }; f', ['a', 'f']],
    ['function f { a; }', ['a']],
    ['! a', ['a']],
    ['a \\\n  --flag', ['a']],
    ['x=$(a) y=`b` c', ['a', 'b', 'c']],
    ['a=(1 $(b))', ['b']],
    ['echo ${x:-$(a)}', ['a', 'echo']],
    ['[[ $(a) == x ]]', ['a']],
    ['time a | b', ['b', 'time']],
    ['cat <<EOF\n$(a)\nEOF', ['a', 'cat']],
    ["cat <<'EOF'\n$(a)\nEOF", ['cat']],
    ['cat <<EOF | b\nbody\nEOF', ['b', 'cat']],
    ['cat <<EOF && b\nbody\nEOF', ['b', 'cat']],
    ["bash -c 'a; b'", ['a', 'b', 'bash']],
    ["bash <<'EOF'\na\nEOF", ['a', 'bash']],
    ["sh <<< 'a | b'", ['a', 'b', 'sh']],
    ['a 2>&1 | b > out', ['a', 'b']],
    ['echo $((1 + 2))', ['echo']],
    ['a & b &', ['a', 'b']],
    ['a; # b; c', ['a']],
    ['a # $(b)', ['a']],
  ];
  it.each(cases)('%j → %j', (command, expected) => {
    const a = analyzeBashCommand(command);
    expect(a.ok).toBe(true);
    expect(names(command)).toEqual(expected);
  });
});

describe('fail closed', () => {
  const parseErrors = [
    'echo "unterminated',
    "echo 'unterminated",
    'a && ',
    'if a; then b',
    '{rm,-rf,/}',
    'ls <>c',
    "echo 'a\\' ; rm x'",
    'a |',
    'echo $(',
    'r\\\nm -rf /',
    'echo a\\\nb',
    'x '.repeat(5_001),
    'ls\x00',
    'echo a\rrm x',
    'ls \x1b[2J',
    'ls\u200b',
    'ls\u00a0-la',
    'echo \u202etxt.exe',
    'echo \ufeffx',
  ];
  it.each(parseErrors.map((c) => [c.length > 80 ? `${c.slice(0, 20)}… (${c.length} chars)` : c, c]))('%j cannot be analysed', (_label, command) => {
    const a = analyzeBashCommand(command);
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.reason.length).toBeGreaterThan(0);
  });

  const unsafe: [string, RegExp][] = [
    ['$x', /command position/],
    ['"$x" -rf /', /command position/],
    ['${x} a', /command position/],
    ['$(echo rm) -rf x', /command position/],
    ['`echo rm` x', /command position/],
    ['timeout 5 $cmd', /command position/],
    ['/???/r? x', /glob/],
    ['eval ls', /eval/],
    ["bash -c \"$X\"", /non-literal/],
    ['sh -c "echo $(id)"', /./],
    ['echo ${x@P}', /prompt/],
    ['echo ${!x}', /indirect/],
    ['echo $((x))', /arithmetic/],
    ['echo $[x+1]', /arithmetic/],
    ['((i++))', /arithmetic/],
    ['for ((i=0; i<n; i++)); do echo; done', /arithmetic/],
    ['echo ${a[$i]}', /subscript/],
    ['[[ $x -eq 1 ]]', /-eq/],
    ['[ -v "a[$x]" ]', /-v/],
    ['test -v "a[1]"', /-v/],
    ['printf -v "$n" x', /printf -v/],
    ['printf -v a[1] x', /printf -v/],
    ["declare 'a[$(id)]=1'", /declare/],
    ['read "a[$x]"', /read/],
    ['let x=y+1', /let/],
    ['cat <<EOF\n`id`\nEOF', /heredoc/],
    ['echo ${x:-`id`}', /did not recognise/],
    ['bash <<EOF\n$x\nEOF', /heredoc/],
    ['сat file', /non-ASCII/],
    ['ｌｓ', /non-ASCII/],
    ['ls ；rm x', /non-ASCII/],
    ['echo héllo', /non-ASCII/],
  ];
  it.each(unsafe)('%j is unsafe (%s)', (command, reason) => {
    const a = analyzeBashCommand(command);
    const subs = [...flattenSubcommands(a.subcommands)];
    const found = subs.find((s) => s.unsafeReason);
    expect(found?.unsafeReason ?? (a.ok ? undefined : a.reason)).toMatch(reason);
  });

  it('allows non-ASCII text inside quotes', () => {
    const a = analyzeBashCommand('git commit -m "fix — naïve 日本語"');
    expect(a.ok).toBe(true);
    expect(a.subcommands[0]?.unsafeReason).toBeUndefined();
    expect(a.subcommands[0]?.argv).toEqual(['git', 'commit', '-m', 'fix — naïve 日本語']);
  });
});

describe('redirects', () => {
  const redirectsOf = (command: string) => [...flattenSubcommands(analyzeBashCommand(command).subcommands)].flatMap((s: SimpleCommand) => s.redirects);
  const cases: [string, { target: string | null; isWrite: boolean }[]][] = [
    ['ls > out', [{ target: 'out', isWrite: true }]],
    ['ls >> out', [{ target: 'out', isWrite: true }]],
    ['ls >| out', [{ target: 'out', isWrite: true }]],
    ['ls &> out', [{ target: 'out', isWrite: true }]],
    ['ls &>> out', [{ target: 'out', isWrite: true }]],
    ['ls >& out', [{ target: 'out', isWrite: true }]],
    ['ls 2> err', [{ target: 'err', isWrite: true }]],
    ['ls 2>&1', [{ target: '1', isWrite: false }]],
    ['ls >&2', [{ target: '2', isWrite: false }]],
    ['ls > "$f"', [{ target: null, isWrite: true }]],
    ['ls > "a b"', [{ target: 'a b', isWrite: true }]],
    ['ls < in', [{ target: 'in', isWrite: false }]],
    ['> out', [{ target: 'out', isWrite: true }]],
    ['{ ls; } > out', [{ target: 'out', isWrite: true }]],
    ['(ls) 2> err', [{ target: 'err', isWrite: true }]],
    ['exec 3> out', [{ target: 'out', isWrite: true }]],
    ['ls > *.txt', [{ target: null, isWrite: true }]],
  ];
  it.each(cases)('%j', (command, expected) => {
    expect(redirectsOf(command).map((r) => ({ target: r.target, isWrite: r.isWrite }))).toEqual(expected);
  });
});

describe('wrappers and deny views', () => {
  const sub = (command: string): SimpleCommand => analyzeBashCommand(command).subcommands.find((s) => s.kind === 'command')!;
  it.each([
    ['timeout 30 npm test', ['npm', 'test']],
    ['timeout --signal=KILL -k 5 30s npm test', ['npm', 'test']],
    ['nice -n 10 npm test', ['npm', 'test']],
    ['nohup npm test', ['npm', 'test']],
    ['stdbuf -oL npm test', ['npm', 'test']],
    ['time -p npm test', ['npm', 'test']],
    ['command npm test', ['npm', 'test']],
    ['builtin echo x', ['echo', 'x']],
    ['xargs grep x', ['grep', 'x']],
    ['NODE_ENV=test npm test', ['npm', 'test']],
    ['LD_PRELOAD=x npm test', ['LD_PRELOAD=x', 'npm', 'test']],
    ['xargs -n1 grep x', ['xargs', '-n1', 'grep', 'x']],
    ['sudo npm test', ['sudo', 'npm', 'test']],
    ['env npm test', ['env', 'npm', 'test']],
    ['npx jest', ['npx', 'jest']],
  ])('allow matching sees %j as %j', (command, expected) => {
    expect(sub(command).strippedArgv).toEqual(expected);
  });

  it.each([
    ['sudo -u root rm -rf /', ['rm', '-rf', '/']],
    ['env -i FOO=1 rm x', ['rm', 'x']],
    ['/bin/rm x', ['rm', 'x']],
    ["bash -c 'rm -rf x'", ['rm', '-rf', 'x']],
    ["sh -lc 'ls; rm x'", ['rm', 'x']],
    ["eval 'rm x'", ['rm', 'x']],
    ['watch rm x', ['rm', 'x']],
    ['find . -exec rm {} ;', ['rm', '{}']],
    ['xargs -0 rm', ['rm']],
    ["trap 'rm x' EXIT", ['rm', 'x']],
    ["su -c 'rm x'", ['rm', 'x']],
    ['git -C /repo push origin', ['git', 'push', 'origin']],
    ["env -S 'rm x'", ['rm', 'x']],
    ['ionice -c 3 rm x', ['rm', 'x']],
    ['setsid -f rm x', ['rm', 'x']],
    ['flock /tmp/l rm x', ['rm', 'x']],
    ['exec rm x', ['rm', 'x']],
    ["timeout 5 bash -c 'sudo rm x'", ['rm', 'x']],
  ])('deny matching of %j sees %j', (command, expected) => {
    expect(sub(command).denyCandidates).toContainEqual(expected);
  });
});

describe('quote removal agrees with bash', () => {
  // Each argument list is handed to a real bash function that prints its arguments; ours must be the same.
  const args = [
    "'a\\'",
    '"a\\"b"',
    "$'a\\tb'",
    "$'\\x72m'",
    "$'\\101\\102'",
    "$'\\u00e9'",
    "$'it\\'s'",
    'a\\ b',
    '"a"\'b\'c',
    '\\;',
    '"\\$HOME"',
    "'$HOME'",
    '"a\\\\b"',
    '"a\\nb"',
    '\\\\',
    'a#b',
    '"r\\\nm"',
    '{}',
    'a=b --x=y',
    "'' \"\"",
    "\\' \"'\" '\"' \\\"",
    'x\\*',
    '$"tr"',
    "r''m \\r\\m \"r\"m",
    "-rf -- '--' -",
  ];
  const script = ['set -f', 'p() { printf "%s\\0" "$@"; printf "\\036"; }', ...args.map((a) => `p ${a}`)].join('\n');
  const records = execFileSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' }).split('\x1e');

  it.each(args.map((a, i) => [a, i] as const))('%s', (a, i) => {
    const expected = records[i]!.split('\0').slice(0, -1);
    const analysis = analyzeBashCommand(`p ${a}`);
    expect(analysis.ok).toBe(true);
    const words = analysis.subcommands[0]!.words.slice(1);
    expect(words.every((w) => w.literal)).toBe(true);
    expect(words.map((w) => w.value)).toEqual(expected);
  });
});
