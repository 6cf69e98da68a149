/**
 * git commands that print file contents from history, the index or the work tree (`git show`, `git log -p`,
 * `git diff <rev>`, `git archive`, `git format-patch --stdout`, `git cat-file --batch-all-objects`, …). When Read deny
 * rules exist such a command asks unless its pathspecs limit it to paths no deny covers: a committed secret is still
 * a secret (issue 10, class 9).
 */
import type { MatchWord } from './rule-match.js';
import { subcommandStarts } from './program-options.js';

export interface HistoryRead {
  readonly what: string;
  /** The pathspecs that limit what is printed; empty: the whole tree. */
  readonly pathspecs: readonly string[];
  /** Positional words that may be revisions or paths (a path only when it exists). */
  readonly maybePaths: readonly string[];
}

const NO_CONTENT = new Set(['--stat', '--shortstat', '--numstat', '--name-only', '--name-status', '--summary', '--dirstat', '-s', '--no-patch', '--raw', '--compact-summary', '--check']);
const PATCH = new Set(['-p', '-u', '--patch', '--patch-with-stat', '--patch-with-raw', '--cc', '-c', '--word-diff', '--color-words', '--full-diff', '--binary', '--textconv']);
const PICKAXE = /^(-S|-G|--pickaxe-regex|--pickaxe-all|--find-object|-L)/;
const CAT_FILE_CONTENT = new Set(['-p', '--batch', '--batch-all-objects', '--batch-command', '--textconv', '--filters']);

/** What this git invocation prints of file contents, or undefined when it prints none. `words[0]` is `git`. */
export function gitHistoryRead(words: readonly MatchWord[]): HistoryRead | undefined {
  const starts = subcommandStarts('git', words);
  const at = starts?.[0];
  if (at === undefined) return undefined;
  const sub = words[at];
  if (!sub?.literal) return { what: 'git with a non-literal subcommand', pathspecs: [], maybePaths: [] };
  const args = words.slice(at + 1);
  const opts: string[] = [];
  const positionals: string[] = [];
  const pathspecs: string[] = [];
  let afterDashes = false;
  for (const w of args) {
    if (!w.literal) return { what: `git ${sub.value} with a non-literal argument`, pathspecs: [], maybePaths: [] };
    if (afterDashes) pathspecs.push(w.value);
    else if (w.value === '--') afterDashes = true;
    else if (w.value.startsWith('-')) opts.push(w.value.split('=')[0]!);
    else positionals.push(w.value);
  }
  const has = (set: ReadonlySet<string>) => opts.some((o) => set.has(o));
  const patch = has(PATCH) || opts.some((o) => PICKAXE.test(o) || /^-U\d*$/.test(o) || o === '--unified');
  const read = (what: string): HistoryRead => ({ what, pathspecs, maybePaths: positionals });
  switch (sub.value) {
    case 'show':
      return has(NO_CONTENT) && !patch ? undefined : read('git show prints file contents from history');
    case 'log':
    case 'whatchanged':
    case 'reflog':
      return patch ? read(`git ${sub.value} with a patch or content search prints file contents from history`) : undefined;
    case 'diff':
    case 'diff-tree':
    case 'diff-index':
    case 'diff-files':
    case 'range-diff':
      if (sub.value !== 'diff' && sub.value !== 'range-diff' && !patch) return undefined;
      return has(NO_CONTENT) && !patch ? undefined : read(`git ${sub.value} prints file contents`);
    case 'stash':
      return positionals[0] === 'show' && patch ? read('git stash show -p prints file contents') : undefined;
    case 'archive':
    case 'bundle':
    case 'fast-export':
      return read(`git ${sub.value} writes out file contents from history`);
    case 'format-patch':
      return read('git format-patch prints file contents from history');
    case 'cat-file':
      return has(CAT_FILE_CONTENT) || positionals.length >= 2 ? { what: 'git cat-file prints objects from history', pathspecs: [], maybePaths: [] } : undefined;
    case 'grep':
      // A revision searches history: `git grep SECRET HEAD~3`.
      return positionals.length > 1 ? read('git grep in a revision searches file contents from history') : undefined;
    case 'blame':
    case 'annotate':
      return read(`git ${sub.value} prints file contents`);
    default:
      return undefined;
  }
}
