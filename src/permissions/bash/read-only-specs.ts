/**
 * The known read/search/list commands and, for each, which options write, delete or execute, which options take
 * values, and which arguments are paths (so paths outside the working directories can be noticed).
 */
import { has, values, type ArgSpec, type ParsedArgs } from './args.js';
import { isSafeAwkProgram, sedScriptProblem } from './program-checks.js';
import type { WordValue } from './words.js';

export interface ReadOnlySpec {
  readonly args?: ArgSpec;
  /** Options that write, delete or execute. */
  readonly unsafe?: ReadonlySet<string>;
  /** When set, any option outside it makes the command not read-only (for commands with many risky options). */
  readonly allowed?: ReadonlySet<string>;
  /** Options whose values are paths. */
  readonly pathOptions?: ReadonlySet<string>;
  /** Which positionals are paths: all, none, or all but a leading pattern/script/program. */
  readonly positionals?: 'all' | 'none' | 'afterPattern';
  /** Options that supply the pattern, so the first positional is a path after all. */
  readonly patternOptions?: ReadonlySet<string>;
  readonly maxPositionals?: number;
  /** Tolerate non-literal words (the command cannot be steered by them: echo). */
  readonly tolerateOpaque?: boolean;
  /** The path read when none is named (`ls` lists `.`). */
  readonly defaultPath?: string;
  /** Extra check on the parsed arguments: false (or why, as a string) when they may write or run commands. */
  readonly check?: (parsed: ParsedArgs) => boolean | string;
  /** Options whose value is a file listing the paths to read: what is read is not in the command. */
  readonly listOptions?: ReadonlySet<string>;
}

const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
const literal = (w: WordValue | undefined): w is WordValue => w !== undefined && w.literal;

const GREP_VALUED = set('-e', '--regexp', '-f', '--file', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context',
  '-C', '--context', '--include', '--exclude', '--exclude-dir', '--exclude-from', '--label', '-d', '--directories', '-D',
  '--devices', '--binary-files', '--group-separator');

const RG_VALUED = set('-e', '--regexp', '-f', '--file', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not',
  '--type-add', '--type-clear', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context',
  '-j', '--threads', '-M', '--max-columns', '-d', '--max-depth', '--max-filesize', '--ignore-file', '--color', '--colors',
  '--sort', '--sortr', '-E', '--encoding', '--path-separator', '--context-separator', '--field-match-separator',
  '--field-context-separator', '-r', '--replace', '--engine', '--dfa-size-limit', '--regex-size-limit', '--generate',
  '--hyperlink-format', '--pre', '--pre-glob', '--hostname-bin');

/**
 * Every script (`-e` and `--expression` values, else the first operand) is plain printing; else why not. With
 * `holdSpace`, scripts that use the hold space pass too (what a prefix allow rule may approve: no write, run or read).
 */
export const sedScriptOk = (p: ParsedArgs, holdSpace = false): boolean | string => {
  const scripts = values(p, '-e', '--expression');
  if (has(p, '-f', '--file')) return 'a script file is not read here';
  const all = scripts.length > 0 ? scripts : [p.positionals[0]];
  for (const script of all) {
    if (!literal(script)) return 'a script that is not literal';
    const problem = sedScriptProblem(script.value, holdSpace);
    if (problem !== undefined) return `its script ${JSON.stringify(script.value.length > 40 ? `${script.value.slice(0, 37)}...` : script.value)}: ${problem}`;
  }
  return true;
};

const awkProgramOk = (p: ParsedArgs): boolean => {
  if (has(p, '-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec')) return false;
  const sources = values(p, '-e', '--source');
  const all = sources.length > 0 ? sources : [p.positionals[0]];
  return all.every((s) => literal(s) && isSafeAwkProgram(s.value));
};

export const READ_ONLY_SPECS: Readonly<Record<string, ReadOnlySpec>> = {
  ls: { defaultPath: '.', args: { valued: set('-I', '--ignore', '-w', '--width', '-T', '--tabsize', '--hide', '--format', '--sort', '--time', '--time-style', '--quoting-style', '--indicator-style', '--block-size') } },
  cat: {},
  tac: {},
  nl: { args: { valued: set('-b', '-d', '-f', '-h', '-i', '-n', '-s', '-v', '-w') } },
  head: { args: { valued: set('-n', '--lines', '-c', '--bytes'), numericOptions: true } },
  tail: { args: { valued: set('-n', '--lines', '-c', '--bytes', '-s', '--sleep-interval', '--pid', '--max-unchanged-stats'), numericOptions: true } },
  wc: { args: { valued: set('--files0-from') }, pathOptions: set('--files0-from'), listOptions: set('--files0-from') },
  grep: { defaultPath: '.', args: { valued: GREP_VALUED }, positionals: 'afterPattern', patternOptions: set('-e', '--regexp', '-f', '--file'), pathOptions: set('-f', '--file', '--exclude-from') },
  rg: {
    defaultPath: '.',
    // ripgrep's parser takes long options only as written.
    args: { valued: RG_VALUED, abbreviate: false },
    unsafe: set('--pre', '--pre-glob', '--hostname-bin', '--search-zip', '-z'),
    positionals: 'afterPattern',
    patternOptions: set('-e', '--regexp', '-f', '--file', '--files', '--type-list'),
    pathOptions: set('-f', '--file', '--ignore-file'),
  },
  find: {}, // parsed by its own grammar in read-only.ts
  fd: {
    defaultPath: '.',
    args: { abbreviate: false, valued: set('-e', '--extension', '-E', '--exclude', '-t', '--type', '-d', '--max-depth', '--min-depth', '-S', '--size', '--changed-within', '--changed-before', '-o', '--owner', '--search-path', '--base-directory', '-j', '--threads', '--max-results', '-c', '--color', '--ignore-file', '--format', '--path-separator', '--max-buffer-time', '--batch-size', '-x', '--exec', '-X', '--exec-batch') },
    unsafe: set('-x', '--exec', '-X', '--exec-batch'),
    positionals: 'afterPattern',
    pathOptions: set('--search-path', '--base-directory', '--ignore-file'),
  },
  tree: {
    defaultPath: '.',
    args: { valued: set('-L', '-P', '-I', '--charset', '--filelimit', '--timefmt', '--sort', '-H', '-T', '-o', '--fromfile') },
    unsafe: set('-o', '--fromfile', '-R'),
  },
  stat: { args: { valued: set('-c', '--format', '--printf') } },
  file: {
    args: { valued: set('-m', '--magic-file', '-F', '--separator', '-e', '--exclude', '-P', '--parameter', '-f', '--files-from') },
    unsafe: set('-C', '--compile', '-z', '-Z', '--uncompress', '--uncompress-noreport'),
    pathOptions: set('-m', '--magic-file', '-f', '--files-from'),
    listOptions: set('-f', '--files-from'),
  },
  du: { defaultPath: '.', args: { valued: set('-d', '--max-depth', '-B', '--block-size', '-t', '--threshold', '--exclude', '-X', '--exclude-from', '--time-style', '--files0-from') }, pathOptions: set('-X', '--exclude-from', '--files0-from'), listOptions: set('--files0-from') },
  df: { args: { valued: set('-B', '--block-size', '-t', '--type', '-x', '--exclude-type') } },
  pwd: { positionals: 'none' },
  whoami: { positionals: 'none' },
  id: { positionals: 'none' },
  groups: { positionals: 'none' },
  uname: { positionals: 'none' },
  nproc: { positionals: 'none' },
  uptime: { positionals: 'none' },
  free: { positionals: 'none' },
  arch: { positionals: 'none' },
  printenv: { positionals: 'none' },
  locale: { positionals: 'none' },
  hostname: { allowed: set('-f', '--fqdn', '--long', '-s', '--short', '-i', '--ip-address', '-I', '--all-ip-addresses', '-d', '--domain', '-A', '--all-fqdns', '-a', '--alias'), maxPositionals: 0 },
  date: {
    args: { valued: set('-d', '--date', '-f', '--file', '-r', '--reference', '--rfc-3339') },
    unsafe: set('-s', '--set'),
    pathOptions: set('-f', '--file', '-r', '--reference'),
    positionals: 'none',
    check: (p) => p.positionals.every((w) => w.literal && w.value.startsWith('+')),
  },
  which: { positionals: 'none' },
  type: { positionals: 'none' },
  whereis: { positionals: 'none' },
  basename: { positionals: 'none' },
  dirname: { positionals: 'none' },
  realpath: { positionals: 'none' },
  readlink: { positionals: 'none' },
  sort: {
    args: { valued: set('-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '-T', '--temporary-directory', '--parallel', '--files0-from', '--batch-size', '--random-source', '-o', '--output', '--compress-program') },
    unsafe: set('-o', '--output', '--compress-program'),
    pathOptions: set('--files0-from', '--random-source'),
    listOptions: set('--files0-from'),
  },
  uniq: { args: { valued: set('-f', '--skip-fields', '-s', '--skip-chars', '-w', '--check-chars') }, maxPositionals: 1 },
  cut: { args: { valued: set('-b', '--bytes', '-c', '--characters', '-f', '--fields', '-d', '--delimiter', '--output-delimiter') } },
  tr: { positionals: 'none' },
  paste: { args: { valued: set('-d', '--delimiters') } },
  comm: { args: { valued: set('--output-delimiter') } },
  join: { args: { valued: set('-a', '-e', '-j', '-o', '-t', '-v', '-1', '-2') } },
  fold: { args: { valued: set('-w', '--width') } },
  expand: { args: { valued: set('-t', '--tabs') } },
  column: { args: { valued: set('-s', '--separator', '-c', '--output-width', '-o', '--output-separator', '-N', '--table-columns', '-R', '-E', '-H', '-W') } },
  rev: {},
  od: { args: { valued: set('-A', '--address-radix', '-t', '--format', '-N', '--read-bytes', '-j', '--skip-bytes', '-w', '--width', '-S', '--strings') } },
  hexdump: { args: { valued: set('-n', '-s', '-e', '-f') }, pathOptions: set('-f') },
  xxd: { args: { valued: set('-c', '-g', '-l', '-s', '-o', '-n') }, maxPositionals: 1 },
  strings: { args: { valued: set('-n', '--bytes', '-t', '--radix', '-e', '--encoding') } },
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  sha512sum: {},
  b2sum: {},
  cksum: {},
  cmp: { args: { valued: set('-i', '--ignore-initial', '-n', '--bytes') } },
  diff: {
    args: { valued: set('-C', '-U', '--label', '-x', '--exclude', '-X', '--exclude-from', '-I', '--ignore-matching-lines', '-F', '--show-function-line', '--from-file', '--to-file', '-W', '--width', '--tabsize', '--line-format', '--old-line-format', '--new-line-format', '--unchanged-line-format', '--horizon-lines', '-S', '--starting-file', '--palette') },
    pathOptions: set('-X', '--exclude-from', '--from-file', '--to-file'),
  },
  jq: {
    args: { abbreviate: false, valued: set('-f', '--from-file', '--indent', '-L'), valued2: set('--arg', '--argjson', '--slurpfile', '--rawfile') },
    positionals: 'afterPattern',
    patternOptions: set('-f', '--from-file'),
    pathOptions: set('-f', '--from-file', '-L', '--slurpfile', '--rawfile'),
    check: (p) => !has(p, '--args', '--jsonargs'),
  },
  seq: { positionals: 'none' },
  sleep: { positionals: 'none' },
  true: { positionals: 'none' },
  false: { positionals: 'none' },
  sed: {
    args: { valued: set('-e', '--expression', '-f', '--file', '-l', '--line-length') },
    allowed: set('-n', '--quiet', '--silent', '-e', '--expression', '-E', '-r', '--regexp-extended', '-s', '--separate', '-u', '--unbuffered', '-z', '--null-data', '--posix', '--debug', '--sandbox', '-l', '--line-length'),
    positionals: 'afterPattern',
    patternOptions: set('-e', '--expression'),
    check: (p) => sedScriptOk(p),
  },
  awk: {
    args: { valued: set('-F', '--field-separator', '-v', '--assign', '-f', '--file', '-e', '--source', '-i', '--include', '-l', '--load', '-E', '--exec') },
    allowed: set('-F', '--field-separator', '-v', '--assign', '-e', '--source', '--posix', '-P', '--traditional', '-c', '-b', '--characters-as-bytes', '-n', '--non-decimal-data', '-N', '--use-lc-numeric'),
    positionals: 'afterPattern',
    patternOptions: set('-e', '--source'),
    check: awkProgramOk,
  },
};
for (const alias of ['gawk', 'mawk', 'nawk']) (READ_ONLY_SPECS as Record<string, ReadOnlySpec>)[alias] = READ_ONLY_SPECS.awk!;
for (const alias of ['egrep', 'fgrep']) (READ_ONLY_SPECS as Record<string, ReadOnlySpec>)[alias] = READ_ONLY_SPECS.grep!;
(READ_ONLY_SPECS as Record<string, ReadOnlySpec>).fdfind = READ_ONLY_SPECS.fd!;

const specArgsCache = new WeakMap<ReadOnlySpec, ArgSpec>();

/** A spec's argument syntax, with every option it names known, so abbreviations of them are read as them. */
export function specArgs(spec: ReadOnlySpec): ArgSpec {
  let args = specArgsCache.get(spec);
  if (!args) {
    const known = new Set<string>();
    for (const group of [spec.unsafe, spec.allowed, spec.pathOptions, spec.patternOptions, spec.listOptions, spec.args?.known]) for (const n of group ?? []) known.add(n);
    args = { ...(spec.args ?? {}), known };
    specArgsCache.set(spec, args);
  }
  return args;
}

/** Output-only commands: they neither make a command read-only nor spoil it. */
export const NEUTRAL_COMMANDS = new Set(['echo', 'printf', ':', 'true', 'false', 'exit', 'return', 'shift', 'break', 'continue']);

/** `set -euo pipefail` and friends: only options that cannot change what later commands run (no -a, -k, -p). */
export function isOptionOnlySet(args: readonly WordValue[]): boolean {
  const named = new Set(['pipefail', 'errexit', 'nounset', 'xtrace', 'verbose', 'noclobber', 'noglob', 'errtrace']);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.literal || !/^[-+][euxvfCEo]+$/.test(w.value)) return false;
    if (w.value.endsWith('o')) {
      const opt = args[++i];
      if (!opt?.literal || !named.has(opt.value)) return false;
    }
  }
  return true;
}
