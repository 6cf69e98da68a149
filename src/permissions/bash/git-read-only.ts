/**
 * Which git invocations only read: a fixed set of subcommands, with the options that write (`--output`), run
 * programs (`--ext-diff`, `-O`), reconfigure git (`-c`, `--exec-path`) or switch repositories refused, and
 * `branch`/`tag`/`config`/`stash`/`remote` only in their listing forms.
 */
import { has, isUnsafeOption, parseArgs, type ArgSpec, type ParsedArgs } from './args.js';
import { dangerousFlag } from './program-options.js';
import { RUNS, WRITES } from './program-dangers.js';
import type { WordValue } from './words.js';

export interface GitVerdict {
  readonly readOnly: boolean;
  readonly reason?: string;
  /** Arguments that may name files (revisions are checked too: harmless when they resolve inside). */
  readonly paths: string[];
}

const SAFE_GLOBAL_FLAGS = new Set(['--no-pager', '-P', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--version']);

const DIFF_LIKE = new Set(['log', 'show', 'diff', 'whatchanged', 'shortlog', 'diff-tree', 'diff-files', 'diff-index', 'rev-list', 'blame', 'annotate', 'range-diff']);
// Not `verify-commit`/`verify-tag`: they run gpg.program, a program git's configuration names.
const PLAIN = new Set(['status', 'rev-parse', 'ls-files', 'ls-tree', 'cat-file', 'merge-base', 'show-ref', 'describe', 'name-rev', 'count-objects', 'for-each-ref', 'check-ignore', 'check-attr', 'var', 'version', 'grep', 'show-branch', 'cherry', 'fsck']);
/** What the read-only classifier takes from the dangerous-flag table (program-dangers.ts): options that run or write. */
const RUNS_OR_WRITES: ReadonlySet<string> = new Set([RUNS, WRITES]);
const UNSAFE_OPTIONS = new Set(['--output', '--output-directory', '--ext-diff', '-O', '--open-files-in-pager', '--exec', '--upload-pack', '--receive-pack', '--exec-path', '-u']);

/** blame's options whose value is a file it prints: `--contents` as the file's lines, the others line by line in errors. */
const BLAME_FILES = ['--contents', '--ignore-revs-file'];
const asWord = (value: string): WordValue => ({ value, literal: true, glob: false, unquotedNonAscii: false });

/**
 * The files blame's options name in one word (a value in the next word is an operand, checked as a path already):
 * `--ignore-revs-file=F` and the abbreviations git accepts (`--conte=F`), `-SF` and `-wSF` (a revs file: each line it
 * cannot read is printed, `-S/etc/passwd` printed the file).
 */
function blameFiles(rest: readonly WordValue[]): WordValue[] {
  const out: WordValue[] = [];
  for (const w of rest) {
    if (w.value === '--') break;
    const long = /^(--[^=]+)=(.*)$/s.exec(w.value);
    if (long) {
      if (long[1]!.length >= 4 && BLAME_FILES.some((o) => o.startsWith(long[1]!))) out.push(asWord(long[2]!));
    } else if (/^-[^-]/.test(w.value) && w.value.includes('S')) {
      const file = w.value.slice(w.value.indexOf('S') + 1);
      if (file !== '') out.push(asWord(file));
    }
  }
  return out;
}

// No option is treated as taking a separate value: git's log/diff parsers want `--opt=value`, and guessing wrong
// would let the swallowed word (say `--output=x`) escape the checks.
const GIT_ARGS: ArgSpec = {};

function verdict(readOnly: boolean, paths: WordValue[], reason?: string): GitVerdict {
  return { readOnly, reason, paths: paths.map((w) => w.value) };
}

function positionalsAreLiteral(p: ParsedArgs): boolean {
  return p.opaque.length === 0 && p.positionals.every((w) => w.literal);
}

/** `words` starts with `git`. */
export function classifyGit(words: readonly WordValue[]): GitVerdict {
  const paths: WordValue[] = [];
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) return verdict(false, [], 'git with a non-literal global option');
    if (!w.value.startsWith('-')) break;
    if (w.value === '-C') {
      const dir = words[i + 1];
      if (!dir?.literal) return verdict(false, [], 'git -C with a non-literal directory');
      paths.push(dir);
      i++;
      continue;
    }
    if (!SAFE_GLOBAL_FLAGS.has(w.value)) return verdict(false, [], `git global option ${w.value} can reconfigure or redirect git`);
  }
  const sub = words[i];
  if (!sub) return verdict(true, paths);
  // The one table of options that make git run a configured program or write (`--textconv`, `--ext-diff`,
  // `--show-signature`, `--format=%G?`, `cat-file --filters`, …), read as git reads them, abbreviations included.
  const danger = dangerousFlag(words, [], RUNS_OR_WRITES);
  if (danger) return verdict(false, [], `git ${sub.value} ${danger.flag} ${danger.what}`);
  if (!sub.literal) return verdict(false, [], 'non-literal git subcommand');
  const name = sub.value;
  const rest = words.slice(i + 1);
  const p = parseArgs(rest, GIT_ARGS);
  if (!positionalsAreLiteral(p)) return verdict(false, [], `git ${name} with non-literal arguments`);
  const bad = p.options.find((o) => isUnsafeOption(o.name, UNSAFE_OPTIONS));
  if (bad) return verdict(false, [], `git ${name} ${bad.name} writes or runs a program`);
  const valuePaths = p.options.filter((o) => o.name === '--contents' || o.name === '-f').flatMap((o) => (o.value ? [o.value] : []));
  if (name === 'blame' || name === 'annotate') valuePaths.push(...blameFiles(rest));
  const withPaths = (): GitVerdict => verdict(true, [...paths, ...p.positionals, ...valuePaths]);

  if (DIFF_LIKE.has(name) || PLAIN.has(name)) {
    if (name === 'fsck' && (has(p, '--lost-found') || has(p, '--dangling'))) return verdict(false, [], 'git fsck --lost-found writes');
    return withPaths();
  }
  switch (name) {
    case 'branch': {
      const listing = new Set(['-a', '--all', '-r', '--remotes', '-l', '--list', '-v', '-vv', '--verbose', '--show-current', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format', '--color', '--no-color', '--column', '--no-column', '-i', '--ignore-case', '--abbrev', '--no-abbrev', '--omit-empty']);
      const other = p.options.find((o) => !listing.has(o.name));
      if (other) return verdict(false, [], `git branch ${other.name} changes branches`);
      if (p.positionals.length > 0 && !has(p, '-l', '--list')) return verdict(false, [], 'git branch NAME creates a branch');
      return verdict(true, paths);
    }
    case 'tag': {
      const listing = new Set(['-l', '--list', '-n', '--sort', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--format', '--color', '--column', '--no-column', '-i', '--ignore-case']);
      const other = p.options.find((o) => !listing.has(o.name) && !/^-n\d*$/.test(o.name));
      if (other) return verdict(false, [], `git tag ${other.name} changes tags`);
      if (p.positionals.length > 0 && !has(p, '-l', '--list')) return verdict(false, [], 'git tag NAME creates a tag');
      return verdict(true, paths);
    }
    case 'remote': {
      const [first, ...more] = p.positionals;
      if (p.options.some((o) => o.name !== '-v' && o.name !== '--verbose')) return verdict(false, [], 'git remote option');
      if (!first || (first.value === 'get-url' && more.length <= 1) || (first.value === 'show' && more.length <= 1)) return verdict(true, paths);
      return verdict(false, [], `git remote ${first.value} changes remotes`);
    }
    case 'stash': {
      const action = p.positionals[0]?.value;
      if (action === 'list' || action === 'show') return verdict(true, paths);
      return verdict(false, [], 'git stash changes the working tree');
    }
    case 'reflog': {
      const action = p.positionals[0]?.value;
      if (action === undefined || action === 'show' || action === 'list' || !['expire', 'delete', 'exists'].includes(action)) return withPaths();
      return verdict(false, [], `git reflog ${action} changes the reflog`);
    }
    case 'worktree':
      return p.positionals[0]?.value === 'list' ? verdict(true, paths) : verdict(false, [], 'git worktree changes worktrees');
    case 'config': {
      const reads = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l', '--get-color', '--get-colorbool'];
      const writes = ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'];
      if (has(p, ...writes)) return verdict(false, [], 'git config writes configuration');
      const action = p.positionals[0]?.value;
      if (has(p, ...reads) || action === 'get' || action === 'list') {
        // `-f FILE` arrives as a flag and a positional (no option takes a value here): positionals are all checked.
        const file = p.options.filter((o) => o.name === '--file').flatMap((o) => (o.value ? [o.value] : []));
        return verdict(true, [...paths, ...p.positionals, ...file]);
      }
      return verdict(false, [], 'git config NAME VALUE writes configuration');
    }
    default:
      return verdict(false, [], `git ${name} is not a known read-only git command`);
  }
}
