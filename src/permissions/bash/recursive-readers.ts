/**
 * Commands that open files they are not given by name: recursive searches (`grep -r`, `rg`, `ag`, `ack`,
 * `git grep`), archivers and copiers of whole directories (`tar c`, `zip -r`, `cp -r`, `rsync -r`, `scp -r`,
 * `diff -r`), `find -exec`/`-delete`, and commands that take their paths from input (`xargs cat`, `cpio -o`,
 * `tar -T`). Listing names (`ls`, `find`, `tree`, `du`, `rg --files`) is not reading and is not reported.
 */
import { parseArgs, type ParsedArgs } from './args.js';
import { READ_ONLY_SPECS } from './read-only-specs.js';
import { readOptions } from './option-reader.js';
import { GLOBAL_OPTIONS, subcommandStarts } from './program-options.js';
import type { WordValue } from './words.js';

export interface DirReader {
  readonly kind: 'dirs';
  /** How the command is named in messages (`rg`, `grep -r`, `find -exec cat`). */
  readonly tool: string;
  /** Path words whose directories it reads, relative to `base` (or the cwd). */
  readonly dirs: readonly string[];
  /** `git -C DIR`, `fd --base-directory DIR`: where relative `dirs` start. */
  readonly base?: string;
  /** Path words that may be revisions instead (git grep): the cwd is searched unless every one of them exists. */
  readonly mayBeRevisions?: boolean;
  /** Follows symbolic links met inside the directories (so it can reach anything). */
  readonly follows: boolean;
  /** How to run it without following links, for the message. */
  readonly followHint?: string;
  /** A content search (the Grep tool does the same job without the denied files). */
  readonly search?: boolean;
  /** Whether the command already leaves out entries named `segment` (a file name glob; `dir` when it names a folder). */
  readonly excludes?: (segment: string, dir: boolean) => boolean;
  /** How to leave `segment` out with this command, for the message. */
  readonly hint?: (segment: string, dir: boolean) => string;
}

export interface ListReader {
  readonly kind: 'list';
  readonly tool: string;
  readonly reason: string;
}

export type ContentReader = DirReader | ListReader;

const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
const word = (value: string): WordValue => ({ value, literal: true, glob: false, unquotedNonAscii: false });
const opt = (p: ParsedArgs, ...names: string[]): boolean => p.options.some((o) => names.includes(o.name));
const optValues = (p: ParsedArgs, ...names: string[]): string[] =>
  p.options.filter((o) => names.includes(o.name) && o.value !== undefined).map((o) => o.value!.value);
/** A GNU long option or an unambiguous abbreviation of it (`--recur` = `--recursive`). */
const longIs = (name: string, full: string, minLength: number): boolean => name.length >= minLength && full.startsWith(name);
const positionals = (p: ParsedArgs): string[] => p.positionals.map((w) => w.value);
/** Short options may be bundled (`-rn`); parseArgs splits them, so a flag shows up as its own option. */
const shortIn = (p: ParsedArgs, letters: string): boolean => p.options.some((o) => o.name.length === 2 && !o.name.startsWith('--') && letters.includes(o.name[1]!));

/** Commands that only print or look at names: `find -exec echo {}`, `xargs ls`. */
const NAMES_ONLY = set('echo', 'printf', 'ls', 'stat', 'basename', 'dirname', 'realpath', 'readlink', 'du', 'test', '[', 'true', 'false', ':');

const GREP_ARGS = READ_ONLY_SPECS.grep!.args!;
const RG_ARGS = READ_ONLY_SPECS.rg!.args!;
const FD_ARGS = READ_ONLY_SPECS.fd!.args!;
const DIFF_ARGS = READ_ONLY_SPECS.diff!.args!;

function grepLike(name: string, args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, GREP_ARGS);
  const follows = opt(p, '-R') || p.options.some((o) => longIs(o.name, '--dereference-recursive', 4));
  const recursive =
    name === 'rgrep' ||
    follows ||
    opt(p, '-r') ||
    p.options.some((o) => longIs(o.name, '--recursive', 5)) ||
    optValues(p, '-d', '--directories').some((v) => v === 'recurse');
  if (!recursive) return undefined;
  const patternGiven = opt(p, '-e', '--regexp', '-f', '--file');
  const dirs = positionals(p).slice(patternGiven ? 0 : 1);
  const files = new Set(optValues(p, '--exclude'));
  const folders = new Set(optValues(p, '--exclude-dir'));
  return {
    kind: 'dirs',
    search: true,
    tool: `${name}${name === 'rgrep' ? '' : follows ? ' -R' : ' -r'}`,
    dirs: dirs.length > 0 ? dirs : ['.'],
    follows,
    followHint: 'use grep -r (it does not follow links inside) or the Grep tool',
    excludes: (seg, dir) => (dir ? folders.has(seg) : files.has(seg)),
    hint: (seg, dir) => (dir ? `--exclude-dir=${seg}` : `--exclude=${seg}`),
  };
}

function ripgrep(args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, RG_ARGS);
  if (opt(p, '--files', '--type-list')) return undefined;
  const patternGiven = opt(p, '-e', '--regexp', '-f', '--file');
  const dirs = positionals(p).slice(patternGiven ? 0 : 1);
  const excluded = new Set(
    optValues(p, '-g', '--glob', '--iglob')
      .filter((g) => g.startsWith('!'))
      .map((g) => g.slice(1).replace(/\/(\*\*)?$/, '')),
  );
  return {
    kind: 'dirs',
    search: true,
    tool: 'rg',
    dirs: dirs.length > 0 ? dirs : ['.'],
    follows: opt(p, '-L', '--follow'),
    followHint: 'drop -L/--follow, or use the Grep tool',
    excludes: (seg) => excluded.has(seg),
    hint: (seg) => `--glob '!${seg}'`,
  };
}

const AG_VALUED = set('-A', '-B', '-C', '-G', '-g', '-m', '-p', '-W', '--after', '--before', '--context', '--file-search-regex', '--ignore', '--ignore-dir', '--max-count', '--depth', '--path-to-ignore', '--pager', '--width', '--workers');
const ACK_VALUED = set('--type', '--ignore-dir', '--noignore-dir', '--ignore-file', '-A', '-B', '-C', '-m', '--output', '-g', '--match', '--files-from', '--pager', '--type-add', '--type-set', '--type-del', '--color-match', '--color-filename', '--color-lineno');

function agOrAck(name: string, args: readonly WordValue[]): ContentReader {
  const ag = name === 'ag';
  const p = parseArgs(args, { valued: ag ? AG_VALUED : ACK_VALUED });
  if (opt(p, '--files-from', '-x')) return { kind: 'list', tool: name, reason: `${name} reads the files to search from a list` };
  // The pattern is searched for as a path too: cheap, and safe if an option was misread.
  const named = positionals(p);
  const ignored = new Set(ag ? optValues(p, '--ignore', '--ignore-dir') : []);
  return {
    kind: 'dirs',
    search: true,
    tool: name,
    dirs: named.length < 2 ? [...named, '.'] : named,
    follows: opt(p, '-f', '--follow'),
    ...(ag ? { excludes: (seg: string) => ignored.has(seg), hint: (seg: string) => `--ignore ${seg}` } : {}),
  };
}

const GIT_GREP_VALUED = set('-e', '-f', '-A', '-B', '-C', '-m', '--max-count', '--max-depth', '--threads', '--context', '--after-context', '--before-context');

function gitGrep(words: readonly WordValue[]): ContentReader | undefined {
  const at = subcommandStarts('git', words)?.[0];
  if (at === undefined || words[at]?.value !== 'grep') return undefined;
  // `git -C a -C b grep`: each -C is relative to the one before.
  let base: string | undefined;
  for (const o of readOptions(words.slice(0, at), GLOBAL_OPTIONS.git!, 1).options) {
    if (!o.names.includes('-C') || o.value === undefined) continue;
    const dir = o.value.value;
    base = base === undefined || dir.startsWith('/') ? dir : `${base}/${dir}`;
  }
  const p = parseArgs(words.slice(at + 1), { valued: GIT_GREP_VALUED, family: 'git' });
  const patternGiven = opt(p, '-e', '-f');
  const dashes = words.slice(at + 1).findIndex((w) => w.value === '--');
  const afterDashes = dashes === -1 ? [] : words.slice(at + 2 + dashes).map((w) => w.value);
  const before = positionals(p).filter((v) => !afterDashes.includes(v)).slice(patternGiven ? 0 : 1);
  const dirs = [...before, ...afterDashes];
  return {
    kind: 'dirs',
    search: true,
    tool: 'git grep',
    dirs: dirs.length > 0 ? dirs : ['.'],
    ...(base !== undefined ? { base } : {}),
    mayBeRevisions: dashes === -1 && before.length > 0,
    follows: false,
  };
}

function findExec(args: readonly WordValue[]): ContentReader | undefined {
  let i = 0;
  let follows = false;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i]!.value)) {
    if (args[i]!.value === '-L') follows = true;
    i += args[i]!.value === '-D' ? 2 : 1;
  }
  const roots: string[] = [];
  while (i < args.length && !/^[-(!),]/.test(args[i]!.value)) roots.push(args[i++]!.value);
  let action: string | undefined;
  for (let j = i; j < args.length; j++) {
    const v = args[j]!.value;
    if (v === '-follow') follows = true;
    if (v === '-delete') action ??= 'find -delete';
    if (/^-(exec|execdir|ok|okdir)$/.test(v)) {
      const command = args[j + 1]?.value ?? '';
      const base = command.slice(command.lastIndexOf('/') + 1);
      if (!NAMES_ONLY.has(base)) action ??= `find ${v} ${base}`;
    }
  }
  if (action === undefined) return undefined;
  return { kind: 'dirs', tool: action, dirs: roots.length > 0 ? roots : ['.'], follows };
}

function fdExec(name: string, args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, FD_ARGS);
  const exec = [...optValues(p, '-x', '--exec', '-X', '--exec-batch')][0];
  if (exec === undefined) return undefined;
  if (NAMES_ONLY.has(exec.slice(exec.lastIndexOf('/') + 1))) return undefined;
  const base = optValues(p, '--base-directory')[0];
  const dirs = [...positionals(p).slice(1), ...optValues(p, '--search-path')];
  return { kind: 'dirs', tool: `${name} --exec ${exec}`, dirs: dirs.length > 0 ? dirs : ['.'], ...(base !== undefined ? { base } : {}), follows: opt(p, '-L', '--follow') };
}

/** Every word that is not an option: archive names and option values are checked as well (broader is safe). */
const plainWords = (args: readonly WordValue[]): string[] => args.map((w) => w.value).filter((v) => !v.startsWith('-') || v === '-');

function tar(args: readonly WordValue[]): ContentReader | undefined {
  const values = args.map((w) => w.value);
  const oldStyle = values[0] !== undefined && /^[A-Za-z]+$/.test(values[0]) ? values[0] : '';
  const clusters = values.filter((v) => /^-[A-Za-z]+$/.test(v)).join('') + oldStyle;
  const longs = values.filter((v) => v.startsWith('--')).map((v) => v.split('=')[0]!);
  const creates = /[cruA]/.test(clusters) || longs.some((l) => ['--create', '--append', '--update', '--catenate', '--concatenate'].some((f) => longIs(l, f, 4)));
  if (!creates) return undefined;
  if (/T/.test(clusters) || longs.some((l) => longIs(l, '--files-from', 5))) return { kind: 'list', tool: 'tar', reason: 'tar -T archives the files named in a list' };
  const dirs = plainWords(args.slice(oldStyle ? 1 : 0));
  return { kind: 'dirs', tool: 'tar', dirs: dirs.length > 0 ? dirs : ['.'], follows: /h/.test(clusters) || longs.some((l) => longIs(l, '--dereference', 5)) };
}

function recursiveCopy(name: string, args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, name === 'cp' ? { valued: set('-S', '--suffix', '-t', '--target-directory') } : {});
  const longs = p.options.map((o) => o.name).filter((n) => n.startsWith('--'));
  const recursive = shortIn(p, name === 'cp' ? 'rRa' : 'r') || longs.some((l) => longIs(l, '--recursive', 5) || (name === 'cp' && longIs(l, '--archive', 4)));
  if (!recursive) return undefined;
  const dirs = [...positionals(p), ...optValues(p, '-t', '--target-directory')];
  // scp follows links; cp -r copies them as links unless told to dereference.
  const follows = name === 'scp' || shortIn(p, 'L') || longs.some((l) => longIs(l, '--dereference', 5));
  return { kind: 'dirs', tool: `${name} -r`, dirs, follows };
}

const RSYNC_VALUED = set('-e', '--rsh', '--rsync-path', '--exclude', '--exclude-from', '--include', '--include-from', '--filter', '-f', '--log-file', '--password-file', '--partial-dir', '--temp-dir', '-T', '--backup-dir', '--compare-dest', '--copy-dest', '--link-dest', '--suffix', '--chmod', '--chown', '--timeout', '--bwlimit', '--port', '--max-size', '--min-size', '--max-delete', '--modify-window', '--out-format', '--info', '--debug', '--usermap', '--groupmap', '--iconv', '--protocol', '--address', '--compress-level', '--skip-compress', '-B', '--block-size', '--files-from');

function rsync(args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, { valued: RSYNC_VALUED });
  if (opt(p, '--files-from')) return { kind: 'list', tool: 'rsync', reason: 'rsync --files-from copies the files named in a list' };
  const longs = p.options.map((o) => o.name).filter((n) => n.startsWith('--'));
  if (!(shortIn(p, 'ra') || longs.some((l) => longIs(l, '--recursive', 5) || longIs(l, '--archive', 4)))) return undefined;
  // Include and filter rules can bring excluded names back: only plain excludes are trusted.
  const trusted = !opt(p, '--include', '--include-from', '--filter', '-f', '-F', '--exclude-from');
  const excluded = new Set(optValues(p, '--exclude').map((g) => g.replace(/\/(\*\*)?$/, '')));
  return {
    kind: 'dirs',
    tool: 'rsync -r',
    dirs: positionals(p),
    follows: shortIn(p, 'Lk') || longs.some((l) => longIs(l, '--copy-links', 7) || longIs(l, '--copy-dirlinks', 7) || longIs(l, '--copy-unsafe-links', 7)),
    excludes: (seg) => trusted && excluded.has(seg),
    hint: (seg) => `--exclude=${seg}`,
  };
}

function diff(args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, DIFF_ARGS);
  if (!(opt(p, '-r') || p.options.some((o) => longIs(o.name, '--recursive', 5)))) return undefined;
  const excluded = new Set(optValues(p, '-x', '--exclude'));
  const trusted = !opt(p, '-X', '--exclude-from');
  return {
    kind: 'dirs',
    tool: 'diff -r',
    dirs: positionals(p),
    follows: !p.options.some((o) => longIs(o.name, '--no-dereference', 5)),
    followHint: 'add --no-dereference',
    excludes: (seg) => trusted && excluded.has(seg),
    hint: (seg) => `--exclude=${seg}`,
  };
}

const XARGS_VALUED = set('-n', '--max-args', '-L', '--max-lines', '-P', '--max-procs', '-s', '--max-chars', '-I', '--replace', '-E', '--eof', '-d', '--delimiter', '-a', '--arg-file', '--process-slot-var');

function xargs(args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, { valued: XARGS_VALUED, posixStop: true });
  const command = p.positionals[0]?.value;
  if (command === undefined || NAMES_ONLY.has(command.slice(command.lastIndexOf('/') + 1))) return undefined;
  return { kind: 'list', tool: `xargs ${command}`, reason: `xargs runs ${command} on paths it reads from its input` };
}

const CONTAINER_VALUED = set('-v', '--volume', '--mount', '-t', '--tag', '-f', '--file', '--build-arg', '--target', '--platform', '--label', '-l', '--network', '--secret', '--ssh', '--cache-from', '--cache-to', '-o', '--output', '--progress', '--iidfile', '-e', '--env', '--env-file', '--name', '-w', '--workdir', '-p', '--publish', '-u', '--user', '--entrypoint', '-H', '--host', '--context', '-c', '--config', '--log-level', '-m', '--memory', '--add-host', '--shm-size', '--ulimit');

/** `docker run -v DIR:/w` exposes a whole directory to the container; `docker build DIR` sends it to the daemon. */
function container(name: string, args: readonly WordValue[]): ContentReader | undefined {
  const p = parseArgs(args, { valued: CONTAINER_VALUED });
  const words = positionals(p);
  const at = words.findIndex((w) => ['run', 'create', 'build', 'buildx'].includes(w));
  const action = words[at];
  if (action === undefined) return undefined;
  if (action === 'build' || action === 'buildx') {
    const dirs = words.slice(at + 1).filter((w) => w !== 'build');
    return { kind: 'dirs', tool: `${name} build`, dirs, follows: false };
  }
  const hostPart = (spec: string): string | undefined => {
    const host = spec.split(':')[0]!;
    return /^[./~]/.test(host) ? host : undefined;
  };
  const dirs = [
    ...optValues(p, '-v', '--volume').flatMap((v) => hostPart(v) ?? []),
    ...optValues(p, '--mount').flatMap((m) => m.split(',').flatMap((kv) => (/^(source|src)=/.test(kv) ? [kv.slice(kv.indexOf('=') + 1)] : []))),
  ];
  return dirs.length > 0 ? { kind: 'dirs', tool: `${name} ${action} -v`, dirs, follows: false } : undefined;
}

/** The content reader a command (argv view, glob words already expanded) is, if it is one. */
export function contentReader(words: readonly WordValue[]): ContentReader | undefined {
  const first = words[0];
  if (!first?.literal) return undefined;
  const name = first.value.slice(first.value.lastIndexOf('/') + 1);
  const args = words.slice(1);
  switch (name) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
    case 'rgrep':
      return grepLike(name, args);
    case 'rg':
      return ripgrep(args);
    case 'ag':
    case 'ack':
    case 'ack-grep':
      return agOrAck(name, args);
    case 'git':
      return gitGrep(words);
    case 'find':
      return findExec(args);
    case 'fd':
    case 'fdfind':
      return fdExec(name, args);
    case 'tar':
    case 'gtar':
    case 'bsdtar':
      return tar(args);
    case 'zip': {
      const p = parseArgs(args, { valued: set('-x', '--exclude', '-i', '--include', '-b', '-n', '-t', '-tt', '-P', '--password') });
      if (opt(p, '-@', '--names-stdin')) return { kind: 'list', tool: 'zip', reason: 'zip -@ archives the files named on its input' };
      if (!(shortIn(p, 'rR') || p.options.some((o) => longIs(o.name, '--recurse-paths', 5) || longIs(o.name, '--recurse-patterns', 10)))) return undefined;
      return { kind: 'dirs', tool: 'zip -r', dirs: positionals(p), follows: !opt(p, '-y', '--symlinks'), followHint: 'add -y to store links as links' };
    }
    case '7z':
    case '7za':
    case '7zr': {
      const rest = plainWords(args);
      if (rest[0] !== 'a' && rest[0] !== 'u') return undefined;
      return { kind: 'dirs', tool: `${name} ${rest[0]}`, dirs: rest.slice(1), follows: true };
    }
    case 'cp':
    case 'scp':
      return recursiveCopy(name, args);
    case 'rsync':
      return rsync(args);
    case 'diff':
      return diff(args);
    case 'gzip':
    case 'gunzip':
    case 'pigz':
    case 'bzip2':
    case 'xz':
    case 'zstd': {
      const p = parseArgs(args, {});
      if (!(opt(p, '-r') || p.options.some((o) => longIs(o.name, '--recursive', 5)))) return undefined;
      return { kind: 'dirs', tool: `${name} -r`, dirs: positionals(p), follows: false };
    }
    case 'xargs':
      return xargs(args);
    case 'docker':
    case 'podman':
    case 'nerdctl':
      return container(name, args);
    case 'parallel':
      return args.some((w) => w.value === ':::' || w.value === '::::' || w.value === ':::+') ? undefined : { kind: 'list', tool: 'parallel', reason: 'parallel runs commands on paths it reads from its input' };
    case 'cpio': {
      const v = args.map((w) => w.value);
      const copies = v.some((x) => /^-[a-zA-Z]*[op]/.test(x) && !x.startsWith('--')) || v.some((x) => x === '--create' || x === '--pass-through');
      return copies ? { kind: 'list', tool: 'cpio', reason: 'cpio copies the files named on its input' } : undefined;
    }
    case 'wc':
    case 'sort':
    case 'md5sum':
    case 'sha256sum':
      return args.some((w) => w.value.startsWith('--files0-from')) ? { kind: 'list', tool: name, reason: `${name} --files0-from reads the files named in a list` } : undefined;
  }
  return undefined;
}

export const toWords = (values: readonly string[]): WordValue[] => values.map(word);
