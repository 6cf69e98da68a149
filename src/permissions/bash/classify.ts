/**
 * The read-only classifier for one subcommand: is it a known read/search/list command with no option that writes,
 * deletes or executes, and which paths does it read? Unknown commands, unknown options on sensitive commands and
 * anything non-literal that could steer the command are not read-only.
 */
import type { SimpleCommand } from './types.js';
import type { WordValue } from './words.js';
import { isUnsafeOption, parseArgs } from './args.js';
import { classifyGit } from './git-read-only.js';
import { isOptionOnlySet, NEUTRAL_COMMANDS, READ_ONLY_SPECS, specArgs, type ReadOnlySpec } from './read-only-specs.js';
import { assignmentName, isDangerousVariable } from './assignments.js';
import { bracketArgs, printfOptionExpansion, testExpansionReason } from './expansion-positions.js';

export interface CommandVerdict {
  readonly readOnly: boolean;
  /** Output-only or shell-state-only (echo, `x=1`, `[ … ]`): allowed, but does not by itself make a command read. */
  readonly neutral?: boolean;
  readonly reason?: string;
  /** Literal path arguments the command reads (relative to the cwd of the moment). */
  readonly paths: readonly string[];
  /** Reads paths that are not in the command (`xargs cat`). */
  readonly unknownPaths?: boolean;
  /** `cd`/`pushd`: where to (null: unknowable). */
  readonly cd?: { readonly target: string | null };
}

const no = (reason: string): CommandVerdict => ({ readOnly: false, reason, paths: [] });
const yes = (paths: readonly string[] = [], extra: Partial<CommandVerdict> = {}): CommandVerdict => ({ readOnly: true, paths, ...extra });
const neutral = (extra: Partial<CommandVerdict> = {}): CommandVerdict => ({ readOnly: true, neutral: true, paths: [], ...extra });

const WRAPPERS_FOR_READ = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin', 'noglob']);
const FIND_UNSAFE = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const FIND_ARG1 = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-size', '-perm', '-user', '-group', '-uid', '-gid', '-mtime', '-atime', '-ctime', '-mmin', '-amin', '-cmin', '-maxdepth', '-mindepth', '-links', '-inum', '-lname', '-ilname', '-fstype', '-used', '-printf', '-regextype', '-context']);
const FIND_PATH_ARG = new Set(['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from']);
const FIND_ARG0 = new Set(['-print', '-print0', '-ls', '-prune', '-quit', '-true', '-false', '-empty', '-readable', '-writable', '-executable', '-nouser', '-nogroup', '-depth', '-xdev', '-mount', '-follow', '-daystart', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-not', '-a', '-and', '-o', '-or', '!', '(', ')', ',', '-help', '--help', '-version', '--version']);

function classifyFind(args: readonly WordValue[]): CommandVerdict {
  if (args.some((w) => !w.literal)) return no('find with non-literal arguments');
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*)$/.test(args[i]!.value)) i++;
  if (args[i]?.value === '-D') i += 2;
  const paths: string[] = [];
  let fromList = false;
  while (i < args.length && !args[i]!.value.startsWith('-') && !['(', '!', ')', ','].includes(args[i]!.value)) paths.push(args[i++]!.value);
  if (paths.length === 0) paths.push('.');
  // An unquoted glob in the expression expands against the cwd first (`-name *.txt` → `-name a.txt b.txt`): the
  // expression find then sees is not the one written.
  if (args.slice(i).some((w) => w.glob)) return no('find with an unquoted glob in its expression');
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (FIND_UNSAFE.has(v)) return no(`find ${v} writes, deletes or runs commands`);
    if (FIND_ARG0.has(v)) continue;
    if (FIND_ARG1.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      i++;
      continue;
    }
    if (FIND_PATH_ARG.has(v)) {
      const p = args[++i];
      if (p) paths.push(p.value);
      if (v === '-files0-from') fromList = true;
      continue;
    }
    return no(`find ${v} is not a known read-only expression`);
  }
  return yes(paths, fromList ? { unknownPaths: true } : {});
}

/**
 * `cd` and `pushd`: where the shell will be. Options as the builtins read them (`-L`, `-P`, `-e`, `-@`; `pushd -n`
 * does not change directory), `--` ends them. Unknowable: a non-literal or glob target (`cd o*` is whatever one
 * directory the glob meets), `-`, the directory stack (`+N`, `-N`, `pushd` alone swaps the top two).
 */
function classifyCd(name: string, args: readonly WordValue[]): CommandVerdict {
  let i = 0;
  let noChange = false;
  for (; i < args.length; i++) {
    const w = args[i]!;
    if (!w.literal) break;
    if (w.value === '--') {
      i++;
      break;
    }
    if (/^-[LPe@]+$/.test(w.value)) continue;
    if (name === 'pushd' && w.value === '-n') {
      noChange = true;
      continue;
    }
    break;
  }
  const target = args[i];
  if (noChange) return neutral();
  if (!target) return neutral({ cd: { target: name === 'cd' ? '~' : null } });
  if (!target.literal || target.glob || target.value === '-' || /^[+-]\d+$/.test(target.value)) return neutral({ cd: { target: null } });
  return neutral({ cd: { target: target.value }, paths: [target.value] });
}

const XARGS_VALUED = new Set(['-n', '--max-args', '-L', '--max-lines', '-P', '--max-procs', '-s', '--max-chars', '-I', '--replace', '-E', '--eof', '-d', '--delimiter', '-a', '--arg-file', '--process-slot-var']);
const XARGS_FLAGS = new Set(['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit']);

function classifyXargs(args: readonly WordValue[]): CommandVerdict {
  const paths: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    if (!w.literal) return no('xargs with non-literal arguments');
    const v = w.value;
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-')) break;
    const eq = v.indexOf('=');
    const name = v.startsWith('--') && eq > 0 ? v.slice(0, eq) : v;
    if (XARGS_FLAGS.has(name)) continue;
    if (XARGS_VALUED.has(name)) {
      const value = eq > 0 ? v.slice(eq + 1) : args[++i]?.value;
      if ((name === '-a' || name === '--arg-file') && value !== undefined) paths.push(value);
      continue;
    }
    if (/^-[nLPsId]\S+$/.test(v)) continue;
    return no(`xargs ${v} is not a known option`);
  }
  const inner = args.slice(i);
  if (inner.length === 0) return yes(paths, { unknownPaths: false });
  const verdict = classifyWords(inner);
  if (!verdict.readOnly) return no(`xargs runs ${inner[0]!.value}, which is not read-only`);
  return yes([...paths, ...verdict.paths], { unknownPaths: !verdict.neutral });
}

function classifyGeneric(name: string, spec: ReadOnlySpec, args: readonly WordValue[]): CommandVerdict {
  const p = parseArgs(args, specArgs(spec));
  const strict = spec.unsafe !== undefined || spec.allowed !== undefined || spec.check !== undefined;
  for (const w of p.opaque) {
    if (!w.literal && !spec.tolerateOpaque) return no(`${name} with a non-literal argument`);
    if (w.literal && strict) return no(`${name} with a glob that could expand to an option`);
  }
  const paths: string[] = [];
  let fromList = false;
  for (const o of p.options) {
    if (isUnsafeOption(o.name, spec.unsafe)) return no(`${name} ${o.name} writes, deletes or runs commands`);
    if (spec.listOptions?.has(o.name)) fromList = true;
    if (spec.allowed && !spec.allowed.has(o.name)) return no(`${name} ${o.name} is not a known read-only option`);
    if (o.value && !o.value.literal) return no(`${name} ${o.name} with a non-literal value`);
    if (o.value && spec.pathOptions?.has(o.name)) paths.push(o.value.value);
  }
  if (spec.maxPositionals !== undefined && p.positionals.length > spec.maxPositionals) return no(`${name} with more arguments than it reads`);
  if (p.positionals.some((w) => !w.literal) && !spec.tolerateOpaque) return no(`${name} with a non-literal argument`);
  const checked = spec.check?.(p) ?? true;
  if (checked !== true) return no(typeof checked === 'string' ? `${name}: ${checked}` : `${name} with a script or arguments that may write or run commands`);
  const mode = spec.positionals ?? 'all';
  if (mode !== 'none') {
    const skipFirst = mode === 'afterPattern' && !p.options.some((o) => spec.patternOptions?.has(o.name));
    const named = p.positionals.slice(skipFirst ? 1 : 0).map((w) => w.value);
    paths.push(...named);
    if (named.length === 0 && spec.defaultPath !== undefined) paths.push(spec.defaultPath);
  }
  return yes(paths, fromList ? { unknownPaths: true } : {});
}

/** Classify a command given as words (name first), without assignments or redirects. */
export function classifyWords(words: readonly WordValue[]): CommandVerdict {
  let core = words;
  while (core[0]?.literal && WRAPPERS_FOR_READ.has(core[0].value)) {
    const w = core[0].value;
    if (w === 'command' && core[1]?.literal && /^-[vV]+$/.test(core[1].value)) return yes();
    if (w === 'timeout') {
      let i = 1;
      while (core[i]?.literal && core[i]!.value.startsWith('-')) i += /^(-s|-k|--signal|--kill-after)$/.test(core[i]!.value) ? 2 : 1;
      core = core.slice(i + 1);
    } else if (w === 'nice') {
      let i = 1;
      while (core[i]?.literal && core[i]!.value.startsWith('-')) i += core[i]!.value === '-n' ? 2 : 1;
      core = core.slice(i);
    } else {
      let i = 1;
      while (core[i]?.literal && core[i]!.value.startsWith('-') && w !== 'nohup') i++;
      core = core.slice(i);
    }
  }
  const first = core[0];
  if (!first) return neutral();
  if (!first.literal) return no('non-literal command name');
  const name = first.value;
  const args = core.slice(1);
  if (NEUTRAL_COMMANDS.has(name)) {
    if (name === 'printf') {
      const option = printfOptionExpansion(args);
      if (option) return no(option);
      const v = args.findIndex((w) => w.literal && w.value.startsWith('-v'));
      const target = v === -1 ? undefined : args[v]!.value === '-v' ? args[v + 1]?.value : args[v]!.value.slice(2);
      if (target !== undefined && isDangerousVariable(target)) return no(`printf -v ${target} changes how later commands run`);
    }
    return neutral();
  }
  switch (name) {
    case 'read': {
      // Every non-option word (and -a's value) is a variable to set.
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!;
        if (!w.literal) return no('read into a non-literal name');
        if (/^-[dinNptu]$/.test(w.value)) {
          i++;
          continue;
        }
        if (w.value.startsWith('-') && w.value !== '-a') continue;
        const target = w.value === '-a' ? args[++i]?.value : w.value;
        if (target === undefined || isDangerousVariable(target)) return no(`read sets ${target ?? 'a variable'}, which changes how later commands run`);
      }
      return neutral();
    }
    case 'wait':
      return args.every((w) => w.literal && /^(\d+|%\S*|-n|-f)$/.test(w.value)) ? neutral() : no('wait -p sets a variable');
    case 'test': {
      const why = testExpansionReason(args);
      if (why) return no(why);
      return neutral({ paths: args.filter((w) => w.literal && /^([~/]|\.\.?\/)|\//.test(w.value)).map((w) => w.value) });
    }
    case 'cd':
    case 'pushd':
      return classifyCd(name, args);
    case 'popd':
      return neutral({ cd: { target: null } });
    case 'set':
      return isOptionOnlySet(args) ? neutral() : no('set changes positional parameters or is not a plain option');
    case 'dirs':
      return yes();
    case 'env':
      return args.every((w) => w.literal && (w.value === '-0' || w.value === '--null')) ? yes() : no('env runs a command or changes the environment');
    case 'git': {
      // git reads the repository of the current directory whatever else it names.
      const v = classifyGit(core);
      return v.readOnly ? yes(['.', ...v.paths]) : no(v.reason ?? 'git command is not read-only');
    }
    case 'find':
      return classifyFind(args);
    case 'xargs':
      return classifyXargs(args);
  }
  if (name.includes('/')) return no(`${name} is a path, not a known command`);
  const spec = Object.hasOwn(READ_ONLY_SPECS, name) ? READ_ONLY_SPECS[name] : undefined;
  if (!spec) return no(`${name} is not a known read-only command`);
  return classifyGeneric(name, spec, args);
}

const DECLARATION_FLAGS = /^-[xrgaAp]+$/;

// Analyses are cached and immutable, so their verdicts can be too.
const verdicts = new WeakMap<SimpleCommand, CommandVerdict>();

/** Classify one analysed subcommand (its redirects are judged elsewhere). */
export function classifySubcommand(sub: SimpleCommand): CommandVerdict {
  let verdict = verdicts.get(sub);
  if (!verdict) {
    verdict = classifyUncached(sub);
    verdicts.set(sub, verdict);
  }
  return verdict;
}

function classifyUncached(sub: SimpleCommand): CommandVerdict {
  if (sub.unsafeReason) return no(sub.unsafeReason);
  // `${…}` can default, assign, slice, transform or take a name from a value: read-only commands get bare `$VAR`
  // only, whose value the result boundary redacts when it is a secret (docs/security.md, the older classes).
  if (sub.paramExpansion !== undefined) return no(`${sub.paramExpansion.length > 40 ? `${sub.paramExpansion.slice(0, 37)}...` : sub.paramExpansion} is a \${…} expansion, which a read-only command may not carry (bare $VAR may)`);
  switch (sub.kind) {
    case 'assignment': {
      const bad = sub.assignments.map(assignmentName).find(isDangerousVariable);
      return bad ? no(`setting ${bad} changes how later commands run`) : neutral();
    }
    case 'declaration': {
      const keyword = sub.words[0]?.value;
      if (keyword === 'unset') {
        const bad = sub.words.slice(1).find((w) => !w.value.startsWith('-') && isDangerousVariable(w.value));
        return bad ? no(`unset ${bad.value} changes how later commands run`) : neutral();
      }
      for (const w of sub.words.slice(1)) {
        if (w.value.startsWith('-')) {
          if (!DECLARATION_FLAGS.test(w.value)) return no(`${keyword} ${w.value} is not a plain declaration`);
          continue;
        }
        const name = assignmentName(w.value);
        if (isDangerousVariable(name)) return no(`setting ${name} changes how later commands run`);
      }
      return neutral();
    }
    case 'test': {
      // `[ … ]` word-splits and parses its arguments as the command `test` does; `[[ … ]]` is read whole by the parser.
      const why = sub.words[0]?.value === '[' ? testExpansionReason(sub.words.slice(1), bracketArgs(sub.text)) : undefined;
      if (why) return no(why);
      return neutral({ paths: sub.words.slice(1).filter((w) => w.literal && /^([~/]|\.\.?\/)|\//.test(w.value)).map((w) => w.value) });
    }
    case 'arithmetic':
    case 'redirect':
      return neutral();
    case 'command': {
      const bad = sub.assignments.map(assignmentName).find(isDangerousVariable);
      if (bad) return no(`${bad}=… changes how the command runs`);
      return classifyWords(sub.words);
    }
  }
}
