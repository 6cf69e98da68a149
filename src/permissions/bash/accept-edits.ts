/**
 * What `acceptEdits` mode accepts of Bash besides the edit tools, as Claude Code documents it: the common filesystem
 * commands `mkdir`, `touch`, `mv` and `cp`, when every path they write (and `cp` reads) is inside the working
 * directories — as written and through symlinks — and is a path the engine would let an edit write (not protected,
 * not denied, no ask rule). Anything this module cannot account for asks as before: an option outside the short list
 * below (judged as GNU `getopt_long` reads it, unambiguous abbreviations included: `--target=/x` is
 * `--target-directory=/x`), a non-literal or glob word, an assignment, a wrapper, a tree too large to look through.
 *
 * Not accepted, on purpose: `rm`/`rmdir` (Claude Code's documentation names four commands), links (`cp -l`/`-s`,
 * a hard link to a denied file would read it under another name), `--parents`, backups and suffixes (names the command
 * makes up), following symbolic links (`-L`/`-H`, they can reach anything), SELinux contexts.
 */
import { basename, join } from 'node:path';
import type { PermissionResult } from '../../tool/permission-types.js';
import { lstatSync, readdirEntriesSync, statSync } from '../observed-fs.js';
import { protectedPathReason } from '../protected-paths.js';
import { resolveArgPath, type CwdState, type WorkingDirs } from './paths.js';
import { sedEditOfCommand } from './sed-edit.js';
import type { SimpleCommand } from './types.js';

interface FsCommandSpec {
  /** Every long option the program has (GNU coreutils 9), so an abbreviation resolves as the program resolves it. */
  readonly longs: readonly string[];
  /** Short letters → their long name (or a name of their own), for every short option the program has. */
  readonly shorts: Readonly<Record<string, string>>;
  /** Options accepted here. */
  readonly accepted: ReadonlySet<string>;
  /** Options that take a value (`--mode=755`, `-m 755`, `-m755`). */
  readonly valued: ReadonlySet<string>;
  /** Long options whose value is optional and only given with `=`. */
  readonly optionalValue?: ReadonlySet<string>;
}

const COMMON_LONGS = ['help', 'version', 'context'];

const SPECS: Readonly<Record<'mkdir' | 'touch' | 'mv' | 'cp', FsCommandSpec>> = {
  mkdir: {
    longs: [...COMMON_LONGS, 'mode', 'parents', 'verbose'],
    shorts: { m: 'mode', p: 'parents', v: 'verbose', Z: 'context' },
    accepted: new Set(['mode', 'parents', 'verbose', 'help', 'version']),
    valued: new Set(['mode']),
  },
  touch: {
    longs: [...COMMON_LONGS, 'no-create', 'date', 'no-dereference', 'reference', 'time'],
    shorts: { a: '-a', c: 'no-create', d: 'date', f: '-f', h: 'no-dereference', m: '-m', r: 'reference', t: '-t' },
    accepted: new Set(['-a', 'no-create', 'date', '-f', '-m', '-t', 'time', 'help', 'version']),
    valued: new Set(['date', 'reference', '-t', 'time']),
  },
  mv: {
    longs: [...COMMON_LONGS, 'backup', 'debug', 'exchange', 'force', 'interactive', 'no-clobber', 'no-copy', 'strip-trailing-slashes', 'suffix', 'target-directory', 'no-target-directory', 'update', 'verbose'],
    shorts: { b: '-b', f: 'force', i: 'interactive', n: 'no-clobber', S: 'suffix', t: 'target-directory', T: 'no-target-directory', u: '-u', v: 'verbose', Z: 'context' },
    accepted: new Set(['debug', 'force', 'interactive', 'no-clobber', 'strip-trailing-slashes', 'target-directory', 'no-target-directory', 'update', '-u', 'verbose', 'help', 'version']),
    valued: new Set(['suffix', 'target-directory']),
    optionalValue: new Set(['backup', 'update']),
  },
  cp: {
    longs: [
      ...COMMON_LONGS, 'archive', 'attributes-only', 'backup', 'copy-contents', 'debug', 'force', 'interactive', 'link', 'dereference', 'no-clobber',
      'no-dereference', 'preserve', 'no-preserve', 'parents', 'recursive', 'reflink', 'remove-destination', 'sparse', 'strip-trailing-slashes',
      'symbolic-link', 'suffix', 'target-directory', 'no-target-directory', 'update', 'verbose', 'keep-directory-symlink', 'one-file-system',
    ],
    shorts: {
      a: 'archive', b: '-b', d: '-d', f: 'force', i: 'interactive', H: '-H', l: 'link', L: 'dereference', n: 'no-clobber', P: 'no-dereference',
      p: '-p', R: 'recursive', r: 'recursive', s: 'symbolic-link', S: 'suffix', t: 'target-directory', T: 'no-target-directory', u: '-u', v: 'verbose', x: 'one-file-system', Z: 'context',
    },
    accepted: new Set([
      'archive', 'attributes-only', 'debug', 'force', 'interactive', '-d', 'no-clobber', 'no-dereference', '-p', 'preserve', 'no-preserve', 'recursive',
      'reflink', 'remove-destination', 'sparse', 'strip-trailing-slashes', 'target-directory', 'no-target-directory', 'update', '-u', 'verbose',
      'keep-directory-symlink', 'one-file-system', 'help', 'version',
    ]),
    valued: new Set(['suffix', 'target-directory', 'no-preserve', 'sparse']),
    optionalValue: new Set(['backup', 'update', 'preserve', 'reflink']),
  },
};

type FsCommand = keyof typeof SPECS;

interface Parsed {
  readonly options: Map<string, string | undefined>;
  readonly operands: string[];
}

/** GNU getopt_long's reading of the words, or why it is not one this module accepts. */
function parse(words: readonly string[], spec: FsCommandSpec): Parsed | string {
  const options = new Map<string, string | undefined>();
  const operands: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      const given = w.slice(2, eq === -1 ? undefined : eq);
      const exact = spec.longs.includes(given) ? [given] : spec.longs.filter((l) => l.startsWith(given));
      if (given === '' || exact.length !== 1) return `${w} is not an option this check knows unambiguously`;
      const name = exact[0]!;
      if (!spec.accepted.has(name)) return `--${name} is not accepted`;
      let value: string | undefined = eq === -1 ? undefined : w.slice(eq + 1);
      if (spec.valued.has(name) && value === undefined) {
        value = words[++i];
        if (value === undefined) return `--${name} needs a value`;
      } else if (value !== undefined && !spec.valued.has(name) && !spec.optionalValue?.has(name)) {
        return `--${name} takes no value`;
      }
      options.set(name, value);
      continue;
    }
    if (w.startsWith('-') && w !== '-') {
      for (let k = 1; k < w.length; k++) {
        const name = spec.shorts[w[k]!];
        if (name === undefined) return `-${w[k]} is not an option this check knows`;
        if (!spec.accepted.has(name)) return `-${w[k]} is not accepted`;
        if (spec.valued.has(name)) {
          const value = k + 1 < w.length ? w.slice(k + 1) : words[++i];
          if (value === undefined) return `-${w[k]} needs a value`;
          options.set(name, value);
          break;
        }
        options.set(name, undefined);
      }
      continue;
    }
    operands.push(w);
  }
  return { options, operands };
}

/** A directory tree is looked through for protected names up to this many entries; a larger one asks. */
const MAX_TREE_ENTRIES = 10_000;

/** The first protected path (relative to `root`, which is itself fine) in a tree, or a reason it cannot be looked through. */
function protectedInside(root: string): string | undefined {
  let seen = 0;
  const stack = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries;
    try {
      entries = readdirEntriesSync(join(root, rel));
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_TREE_ENTRIES) return `more than ${MAX_TREE_ENTRIES} entries to look through`;
      const child = rel === '' ? e.name : join(rel, e.name);
      const hit = protectedPathReason(`/${child}`);
      if (hit !== undefined) return `it holds ${child} (${hit}), a protected path`;
      if (e.isDirectory()) stack.push(child);
    }
  }
  return undefined;
}

const isDirectory = (abs: string): boolean => {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
};
const isRealDirectory = (abs: string): boolean => {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
};

export interface AcceptEditsDeps {
  readonly state: CwdState;
  readonly home: string | undefined;
  readonly workingDirs: WorkingDirs;
  readonly checkWritePath: (abs: string) => PermissionResult;
  readonly checkReadPath?: (abs: string) => PermissionResult;
}

export type AcceptEditsVerdict = { readonly accepted: true; readonly reason: string } | { readonly accepted: false; readonly reason: string };

/** Whether acceptEdits mode accepts this subcommand (the caller checks the mode). */
export function acceptEditsCommand(sub: SimpleCommand, deps: AcceptEditsDeps): AcceptEditsVerdict | undefined {
  if (sub.kind !== 'command' || sub.inner !== undefined || sub.unsafeReason !== undefined) return undefined;
  const name = sub.words[0]?.literal ? sub.words[0].value : undefined;
  if (name === 'sed') return acceptSedEdit(sub, deps);
  if (name === undefined || !Object.hasOwn(SPECS, name)) return undefined;
  const no = (why: string): AcceptEditsVerdict => ({ accepted: false, reason: `acceptEdits does not accept this ${name}: ${why}` });
  if (sub.assignments.length > 0) return no('it sets variables for the command');
  const bad = sub.words.find((w) => !w.literal || w.glob);
  if (bad !== undefined) return no(`${bad.value} is not a literal path`);
  const spec = SPECS[name as FsCommand];
  const parsed = parse(sub.words.slice(1).map((w) => w.value), spec);
  if (typeof parsed === 'string') return no(parsed);
  const { options, operands } = parsed;
  if (options.has('help') || options.has('version')) return { accepted: true, reason: `acceptEdits mode accepts ${name} --help/--version` };

  const resolve = (raw: string): string[] | string => {
    if (raw === '' || raw === '-') return `${JSON.stringify(raw)} is not a path`;
    const abs = resolveArgPath(raw, deps.state, deps.home);
    return abs ?? `the location of ${raw} cannot be known`;
  };
  const written: string[] = [];
  const read: string[] = [];
  const trees: string[] = [];
  if (name === 'mkdir' || name === 'touch') {
    if (operands.length === 0) return no('no operand');
    for (const op of operands) {
      const abs = resolve(op);
      if (typeof abs === 'string') return no(abs);
      written.push(...abs);
    }
  } else {
    const targetDir = options.get('target-directory');
    const noTargetDir = options.has('no-target-directory');
    if (targetDir !== undefined && noTargetDir) return no('-t and -T together');
    const sources = targetDir !== undefined ? operands : operands.slice(0, -1);
    const dest = targetDir ?? operands[operands.length - 1];
    if (dest === undefined || sources.length === 0) return no('it needs a source and a destination');
    if (noTargetDir && sources.length !== 1) return no('-T takes one source');
    const destAbs = resolve(dest);
    if (typeof destAbs === 'string') return no(destAbs);
    const recursive = name === 'mv' || options.has('recursive') || options.has('archive');
    for (const src of sources) {
      const srcAbs = resolve(src);
      if (typeof srcAbs === 'string') return no(srcAbs);
      // mv takes the source away: it is written too. cp reads it.
      (name === 'mv' ? written : read).push(...srcAbs);
      for (const d of destAbs) {
        const intoDir = targetDir !== undefined || (!noTargetDir && (sources.length > 1 || isDirectory(d)));
        const target = intoDir ? join(d, basename(src)) : d;
        written.push(target);
        // A directory moved or copied in brings every name below it: none may be protected.
        if (recursive && srcAbs.some(isRealDirectory)) {
          if (isDirectory(target)) return no(`${target} already exists as a folder (what is in it could lead elsewhere)`);
          trees.push(...srcAbs.filter(isRealDirectory));
        }
      }
    }
  }
  for (const abs of written) {
    if (!deps.workingDirs.contains(abs)) return no(`it writes ${abs}, outside the working directories`);
    const r = deps.checkWritePath(abs);
    if (r.behavior !== 'allow') return no(`writing ${abs} is not allowed as an edit (${r.decisionReason?.reason ?? r.behavior})`);
  }
  for (const abs of read) {
    if (!deps.workingDirs.contains(abs)) return no(`it reads ${abs}, outside the working directories`);
    if (deps.checkReadPath !== undefined && deps.checkReadPath(abs).behavior !== 'allow') return no(`reading ${abs} needs permission`);
  }
  for (const tree of trees) {
    const why = protectedInside(tree);
    if (why !== undefined) return no(`${tree}: ${why}`);
  }
  return { accepted: true, reason: `acceptEdits mode accepts ${name} on paths inside the working directories` };
}

/**
 * A `sed -i` the engine can simulate (sed-edit.ts) is an edit of its one file: accepted when that file, as written and
 * through symlinks, is inside the working directories, a regular file (not a link: `sed -i` would replace the link)
 * and one an edit may write. Any other `sed -i` asks as before.
 */
function acceptSedEdit(sub: SimpleCommand, deps: AcceptEditsDeps): AcceptEditsVerdict | undefined {
  const edit = sedEditOfCommand(sub);
  if (edit === undefined) return undefined;
  const no = (why: string): AcceptEditsVerdict => ({ accepted: false, reason: `acceptEdits does not accept this sed -i: ${why}` });
  if (typeof edit === 'string') return no(`it is not an edit toolgate can simulate (${edit})`);
  const targets = resolveArgPath(edit.file, deps.state, deps.home);
  if (targets === undefined) return no(`the location of ${edit.file} cannot be known`);
  for (const abs of targets) {
    if (!deps.workingDirs.contains(abs)) return no(`it writes ${abs}, outside the working directories`);
    let regular = false;
    try {
      regular = lstatSync(abs).isFile();
    } catch {
      regular = false;
    }
    if (!regular) return no(`${abs} is not a regular file`);
    const r = deps.checkWritePath(abs);
    if (r.behavior !== 'allow') return no(`writing ${abs} is not allowed as an edit (${r.decisionReason?.reason ?? r.behavior})`);
  }
  return { accepted: true, reason: 'acceptEdits mode accepts a sed -i edit toolgate can simulate, of a file inside the working directories' };
}
