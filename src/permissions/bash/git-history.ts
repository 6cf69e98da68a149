/**
 * git commands that print file contents — from history, the index or the work tree (`git show`, `git log -p`,
 * `git diff`, `git status -v`, `git grep -e X HEAD`, `git blame`, `git archive`, `git add -p`, `git stash show`, …) —
 * or may (a subcommand git does not have is an alias or an external command: `git lg` may be `log -p`). When Read deny
 * rules exist such a command asks unless its pathspecs limit it to paths no deny covers: a committed secret is still
 * a secret (issue 10 class 9, issue 21). Options are read as git reads them (option-reader.ts): `--pat`, `-sv`,
 * `--verb` are what git makes of them.
 */
import type { MatchWord } from './rule-match.js';
import { readOptions, type OptionSyntax, type OptionUse } from './option-reader.js';
import { subcommandStarts } from './program-options.js';

export interface HistoryRead {
  readonly what: string;
  /** The pathspecs that limit what is printed; empty: the whole tree. */
  readonly pathspecs: readonly string[];
  /** Positional words that may be revisions or paths (a path only when it exists). */
  readonly maybePaths: readonly string[];
}

const s = (...xs: string[]): ReadonlySet<string> => new Set(xs);

/** Options after which a diff-printing command prints names or numbers only — when spelled out in full. */
const NO_CONTENT = s('--stat', '--shortstat', '--numstat', '--name-only', '--name-status', '--summary', '--dirstat', '-s', '--no-patch', '--raw', '--compact-summary');
/** Options that print file contents (or search them: a match is an answer about the contents). */
const PATCH = s(
  '-p', '-u', '--patch', '--patch-with-stat', '--patch-with-raw', '--cc', '-c', '-m', '--dd', '--remerge-diff', '--diff-merges', '--word-diff',
  '--word-diff-regex', '--color-words', '--full-diff', '--binary', '--textconv', '--ext-diff', '--check', '-W', '--function-context', '-U',
  '--unified', '-S', '-G', '--pickaxe-regex', '--pickaxe-all', '--find-object', '-L', '--show-current-patch',
);
const CAT_FILE_CONTENT = s('-p', '--batch', '--batch-all-objects', '--batch-command', '--textconv', '--filters');
/** Interactive hunk selection prints the hunks before it asks. */
const INTERACTIVE = s('-p', '--patch', '-i', '--interactive');
const VERBOSE = s('-v', '--verbose');
const GREP_VALUED = s('-e', '-f', '-A', '-B', '-C', '-m', '--max-count', '--max-depth', '--threads', '--context', '--after-context', '--before-context');

/** Options of log/diff/status/… that take the next word as their value (so a `--` after them is that value). */
const HISTORY_VALUED = s('-S', '-G', '-L', '-O', '--find-object', '--word-diff-regex', '--diff-merges', '--grep', '--author', '--committer', '-n', '--max-count', '--skip', '--since', '--until', '--after', '--before', '--exclude', '--output', '--src-prefix', '--dst-prefix', '--line-prefix', '--diff-filter', '--anchored', '-I', '--ignore-matching-lines', '--message', '-F', '--file', '--pathspec-from-file', '--contents', '--ignore-rev', '--ignore-revs-file');
const HISTORY_FLAGS = s(...[...PATCH, ...NO_CONTENT, ...CAT_FILE_CONTENT, ...INTERACTIVE, ...VERBOSE].filter((o) => !HISTORY_VALUED.has(o)), '--dry-run', '--cached', '--staged', '--no-index', '--all', '-a', '--text', '--oneline', '-z', '-b', '--short', '--branch', '--graph', '--decorate', '--follow', '--reverse', '--no-merges', '--merges', '--first-parent', '--no-renames', '--ignored', '--porcelain', '--long', '--no-color', '--color', '-q', '--quiet');
const SYNTAX: OptionSyntax = { family: 'git', valued: HISTORY_VALUED, flags: HISTORY_FLAGS };
const GREP_SYNTAX: OptionSyntax = { family: 'git', valued: GREP_VALUED, flags: s('--and', '--or', '--not', '--all-match'), known: s('--no-index', '--untracked', '--cached', '--textconv', '--open-files-in-pager') };

/** git subcommands that never print file contents (whatever their options, apart from those handled below). */
const NO_CONTENT_COMMANDS = s(
  'branch', 'tag', 'remote', 'config', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'ls-remote', 'merge-base', 'show-ref', 'symbolic-ref',
  'describe', 'name-rev', 'count-objects', 'for-each-ref', 'check-ignore', 'check-attr', 'check-ref-format', 'check-mailmap', 'var', 'version',
  'help', 'show-branch', 'cherry', 'verify-commit', 'verify-tag', 'fsck', 'shortlog', 'worktree', 'init', 'clone', 'fetch', 'pull', 'push',
  'switch', 'merge', 'cherry-pick', 'revert', 'rm', 'mv', 'clean', 'gc', 'prune', 'repack', 'maintenance', 'bisect', 'submodule', 'notes',
  'sparse-checkout', 'update-ref', 'update-index', 'write-tree', 'commit-tree', 'mktag', 'mktree', 'hash-object', 'update-server-info',
  'pack-refs', 'reflog', 'log', 'whatchanged', 'diff-tree', 'diff-index', 'diff-files', 'status', 'commit', 'add', 'checkout', 'reset',
  'restore', 'stash', 'am', 'rebase', 'cat-file', 'grep', 'show', 'diff', 'rerere', 'request-pull', 'apply', 'column', 'stripspace',
  'interpret-trailers', 'mailinfo', 'mailsplit', 'credential', 'lfs', 'range-diff',
);

/** What this git invocation prints of file contents, or undefined when it prints none. `words[0]` is `git`. */
export function gitHistoryRead(words: readonly MatchWord[]): HistoryRead | undefined {
  const starts = subcommandStarts('git', words);
  const at = starts?.[0];
  if (at === undefined) return undefined;
  const sub = words[at];
  if (!sub?.literal) return { what: 'git with a non-literal subcommand', pathspecs: [], maybePaths: [] };
  const name = sub.value;
  const args = words.slice(at + 1);
  if (args.some((w) => !w.literal)) return { what: `git ${name} with a non-literal argument`, pathspecs: [], maybePaths: [] };
  const r = readOptions(args, name === 'grep' ? GREP_SYNTAX : SYNTAX);
  const opts = r.options;
  const positionals = r.operands.map((o) => args[o.at]!.value);
  const pathspecs = r.endedByDashes ? args.slice(r.end).map((w) => w.value) : [];
  // Anything that can turn contents on counts as it (abbreviations included); only options spelled out turn them off.
  const any = (set: ReadonlySet<string>) => opts.some((o: OptionUse) => !o.negated && o.names.some((n) => set.has(n)));
  const exactly = (set: ReadonlySet<string>) => opts.some((o) => set.has(o.written) && o.names.length === 1 && o.names[0] === o.written);
  const patch = any(PATCH);
  const read = (what: string, maybePaths: readonly string[] = positionals): HistoryRead => ({ what, pathspecs, maybePaths });
  // Commands whose output pathspecs do not limit (`git status -v -- src` prints every staged change).
  const unlimited = (what: string): HistoryRead => ({ what, pathspecs: [], maybePaths: [] });
  switch (name) {
    case 'show':
      // `git show --stat <blob>` still prints the blob: an object id is content whatever the options.
      if (exactly(NO_CONTENT) && !patch && !positionals.some((p) => /^[0-9a-f]{4,64}$/i.test(p) || /\^\{(blob|object)?\}|:/.test(p))) return undefined;
      return read('git show prints file contents from history');
    case 'log':
    case 'whatchanged':
    case 'reflog':
      return patch ? read(`git ${name} with a patch or content search prints file contents from history`) : undefined;
    case 'diff':
    case 'diff-tree':
    case 'diff-index':
    case 'diff-files':
    case 'range-diff':
      if (name !== 'diff' && name !== 'range-diff' && !patch) return undefined;
      return exactly(NO_CONTENT) && !patch ? undefined : read(`git ${name} prints file contents`);
    case 'status':
      return any(VERBOSE) ? unlimited('git status -v prints every staged change, whatever the pathspecs (and -vv the unstaged ones)') : undefined;
    case 'commit':
      return any(VERBOSE) || any(INTERACTIVE) ? unlimited('git commit -v/-p prints the changes') : undefined;
    case 'add':
    case 'checkout':
    case 'reset':
    case 'restore':
      return any(INTERACTIVE) ? read(`git ${name} -p prints each change it offers`) : undefined;
    case 'stash': {
      const action = positionals[0];
      // `stash.showPatch` turns a plain `git stash show` into a patch.
      if (action === 'show') return exactly(NO_CONTENT) && !patch ? undefined : unlimited('git stash show prints the stashed changes');
      if (action === 'list') return patch ? unlimited('git stash list -p prints the stashed changes') : undefined;
      return any(INTERACTIVE) ? read('git stash -p prints each change it offers', positionals.slice(1)) : undefined;
    }
    case 'am':
    case 'rebase':
      return any(s('--show-current-patch')) ? unlimited(`git ${name} --show-current-patch prints a patch`) : undefined;
    case 'rerere':
      return positionals[0] === 'diff' ? unlimited('git rerere diff prints conflicting contents') : undefined;
    case 'request-pull':
      return patch ? unlimited('git request-pull -p prints a patch') : undefined;
    case 'archive':
    case 'bundle':
    case 'fast-export':
    case 'send-email':
      return read(`git ${name} writes out file contents from history`);
    case 'format-patch':
      return read('git format-patch prints file contents from history');
    case 'merge-tree':
    case 'unpack-file':
    case 'difftool':
    case 'mergetool':
      return unlimited(`git ${name} prints or hands file contents to a program`);
    case 'cat-file':
      return any(CAT_FILE_CONTENT) || positionals.length >= 2 ? unlimited('git cat-file prints objects from history') : undefined;
    case 'grep': {
      // The pattern is the first operand unless -e/-f gave it; the other operands before `--` are revisions (or paths).
      const patternGiven = opts.some((o) => o.names.includes('-e') || o.names.includes('-f'));
      const rest = positionals.slice(patternGiven ? 0 : 1);
      return rest.length > 0 ? read('git grep in a revision searches file contents from history', rest) : undefined;
    }
    case 'blame':
    case 'annotate':
      return read(`git ${name} prints file contents`);
    default:
      if (NO_CONTENT_COMMANDS.has(name)) return undefined;
      return unlimited(`git ${name} is not a git command this engine knows: an alias or an external command may print file contents`);
  }
}
