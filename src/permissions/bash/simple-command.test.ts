/**
 * The JS parse of plain commands must be the wasm parser's parse, node for node: then the analysis, and every decision
 * made from it, cannot differ. Checked against tree-sitter-bash itself on every string literal of the test suite (the
 * commands the engine's tests judge, and much else) and on generated commands built from the characters at the edge
 * of what counts as plain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser, parseBash, type ParsedBash, type SyntaxNode } from './parser.js';
import { parseSimpleCommand } from './simple-command.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

function shape(node: SyntaxNode): string {
  const head = `${node.type}${node.isNamed ? '' : '!'}[${node.startIndex}-${node.endIndex}]`;
  if (node.children.some((c) => c.parent !== node)) return `${head}<bad parent>`;
  return node.children.length === 0 ? head : `(${head} ${node.children.map(shape).join(' ')})`;
}
const describeParse = (p: ParsedBash | null) => (p ? `${shape(p.root)} error=${p.hasError} missing=${p.hasMissing}` : 'null');

/** Every command the JS parse accepts, with what tree-sitter makes of it where they differ. */
function disagreements(commands: Iterable<string>): { accepted: number; differ: string[] } {
  let accepted = 0;
  const differ: string[] = [];
  for (const command of commands) {
    const fast = parseSimpleCommand(command);
    if (fast === null) continue;
    accepted++;
    const [mine, theirs] = [describeParse(fast), describeParse(parseBash(command))];
    if (mine !== theirs) differ.push(`${JSON.stringify(command)}\n  js:   ${mine}\n  wasm: ${theirs}`);
  }
  return { accepted, differ };
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'fixtures') out.push(...testFiles(full));
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The string literals of the suite's test files, as written (those with escapes or interpolation are left out). */
function suiteLiterals(): Set<string> {
  const out = new Set<string>();
  for (const file of [...testFiles(path.join(repoRoot, 'src')), ...testFiles(path.join(repoRoot, 'test'))]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`\\$]*)`/g)) out.add(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return out;
}

/** A small deterministic generator (the same commands on every run). */
function* generated(seed: number, count: number, alphabet: string, words: readonly string[]): Generator<string> {
  let s = seed;
  const next = (k: number) => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s % k;
  };
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    for (let n = 1 + next(4); n > 0; n--) {
      parts.push(next(3) === 0 && words.length > 0 ? words[next(words.length)]! : Array.from({ length: 1 + next(5) }, () => alphabet[next(alphabet.length)]).join(''));
    }
    const gap = next(6) === 0 ? '\t' : next(4) === 0 ? '  ' : ' ';
    yield `${next(5) === 0 ? ' ' : ''}${parts.join(gap)}${next(5) === 0 ? ' \t' : ''}`;
  }
}

/** First words the grammar reads specially, and words at the edges of numbers and assignments. */
const EDGE_WORDS = [
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in', 'function',
  'time', 'coproc', 'declare', 'typeset', 'export', 'readonly', 'local', 'unset', 'unsetenv', 'test', 'echo', 'git',
  '[', '[[', ']', '{', '}', '!', '.', '..', ':', 'a=b', 'A=1', 'a+=b', 'a[1]=x', '=', '=a', 'a=', '-', '--', '-1', '-0',
  '1', '007', '0x1', '0x1f', '2.5', '1a', '1#2', '8#17', '-a', '%1', '%', '@', '@x', '+', '+1', ',', 'a:b', 'k=v=w',
  '==', '=~', '!=', '==a', '-eq', '-o', '-a', '=',
];

beforeAll(async () => {
  await loadBashParser();
});

describe('the JS parse of plain commands', () => {
  it('takes the everyday plain commands', () => {
    for (const command of ['git status', 'ls -la src', 'sleep 10', 'echo hi', 'npm run test', 'cat ./a/b.txt', 'head -20 x', 'git log --format=%H -1',
      'grep -n hello README.md | head -20', 'npm ci && npm test', 'a; b', 'a || b', 'make;', 'a|b|c', 'a && b | c || d; e']) {
      expect(parseSimpleCommand(command), command).not.toBeNull();
    }
  });

  it('leaves anything more to tree-sitter', () => {
    const more = [
      '', '   ', 'ls |& head', 'a & b', 'a &', 'a;; b', '; a', 'a | ', 'a &&', '| a', 'a && ; b', 'a ||| b', 'a ;& b', 'echo $HOME', "echo 'x'", 'echo "x"', 'ls *.ts', 'cd ~', 'echo a # c',
      'ls > out', 'echo {a,b}', 'echo \\x', 'echo\nls', 'A=1 env', 'export A=1', 'if', 'declare x', '1 2', '-x', 'echo 2.5',
      'echo 0x10', 'echo é', 'x%y', 'echo `ls`', 'echo $(ls)', 'a=(1 2)', 'echo a\rb',
    ];
    for (const command of more) expect(parseSimpleCommand(command), JSON.stringify(command)).toBeNull();
  });

  it('is the wasm parse, node for node, for every string literal of the test suite', () => {
    const { accepted, differ } = disagreements(suiteLiterals());
    expect(differ).toEqual([]);
    // Not vacuous: the suite's plain commands (and plain-looking strings) are many.
    expect(accepted).toBeGreaterThan(1_000);
  });

  it('is the wasm parse, node for node, for generated commands at the edges of plain', () => {
    const plain = disagreements(generated(7, 20_000, 'aZz09_./:@%+,=-', []));
    const edges = disagreements(generated(11, 20_000, 'aZz09_./:@%+,=- #$*?~\'"\\;|&<>(){}[]!^', EDGE_WORDS));
    expect([...plain.differ, ...edges.differ]).toEqual([]);
    expect(plain.accepted).toBeGreaterThan(2_000);
    expect(edges.accepted).toBeGreaterThan(200);
  });

  it('is the wasm parse, node for node, for generated pipelines, lists and statements', () => {
    const ops = ['|', '||', '&&', ';', ' | ', ' && ', ' || ', '; ', ' ; ', '&', '|&', ';;', ' ', '  ', '\t'];
    const commands = ['ls', 'ls -la', 'git status', 'grep -n x a.txt', 'head -20', 'wc -l', 'echo 1 2', 'if', 'then', 'a=b x', 'x =y', '-x', 'done', 'time ls', '!', 'echo $x', 'cd ..'];
    function* joined(seed: number, count: number): Generator<string> {
      let s = seed;
      const next = (k: number) => {
        s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
        return s % k;
      };
      for (let i = 0; i < count; i++) {
        let line = next(6) === 0 ? ops[next(ops.length)]! : '';
        for (let n = 1 + next(4); n > 0; n--) line += commands[next(commands.length)]! + (n > 1 || next(4) === 0 ? ops[next(ops.length)]! : '');
        yield line;
      }
    }
    const { accepted, differ } = disagreements(joined(5, 20_000));
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThan(3_000);
  });

  it('is the wasm parse, node for node, for the edge words joined by operators', () => {
    // The edge words as arguments and as first words of the second, third… command: the grammar's reading of a
    // word may depend on what came before it (a keyword after `;` or `&&`, a number or `==` after `|`).
    const ops = ['|', '||', '&&', ';', ' | ', ' && ', ' || ', ' ; ', '\t;\t', ';'];
    const names = ['ls', 'echo', 'test', 'git', 'x', '.', 'a.b', '_', '/bin/ls', './x', 'env'];
    function* joined(seed: number, count: number): Generator<string> {
      let s = seed;
      const next = (k: number) => {
        s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
        return s % k;
      };
      const pick = () => (next(3) === 0 ? EDGE_WORDS[next(EDGE_WORDS.length)]! : names[next(names.length)]!);
      for (let i = 0; i < count; i++) {
        let line = '';
        for (let n = 1 + next(4); n > 0; n--) {
          const words = [pick()];
          for (let k = next(4); k > 0; k--) words.push(next(2) === 0 ? EDGE_WORDS[next(EDGE_WORDS.length)]! : names[next(names.length)]!);
          line += words.join(next(5) === 0 ? '\t' : ' ') + (n > 1 ? ops[next(ops.length)]! : next(5) === 0 ? ';' : '');
        }
        yield line;
      }
    }
    const { accepted, differ } = disagreements(joined(13, 20_000));
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThan(2_000);
  });
});
