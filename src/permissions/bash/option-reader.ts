/**
 * One reader for command-line options, as each family of programs parses them (issue 21, "flags as the program reads
 * them"). A flag table only means something together with the parser that reads it: `npm test --node-option=…` is
 * `--node-options` to npm (nopt accepts unique prefixes, with one dash or two), `sort --out=x` is `--output` to GNU
 * getopt_long, `-sSo file` is `-s -S -o file` to curl, while cobra (docker, kubectl) and Go's flag package take
 * names only as written. Every table (global options, dangerous flags, read-only specs, git's history readers) goes
 * through `readOptions` with its program's family, so a word means to the engine what it means to the program.
 *
 * Where the program's reading cannot be known (an option we have no row for may or may not take the next word), the
 * reader says so (`arity: 'unknown'`, `maybeValue`), and each caller takes the reading that fails closed.
 */
import type { MatchWord } from './rule-match.js';

export type OptionFamily =
  /** GNU getopt_long (coreutils, grep, sed, tar, wget, make, …): `-abc`, `-ovalue`, `--long=v`, `--long v`, abbreviations, options anywhere. */
  | 'gnu'
  /** POSIX/BSD getopt (ssh, scp): short options only, clusters and attached values, stops at the first operand. */
  | 'posix'
  /** npm's nopt: one dash or two alike, `--no-x`, shorthands (`-C` = `--prefix`) and their clusters, abbreviations of every known key. */
  | 'nopt'
  /** git's parse-options: GNU-like with `--no-x` negation and abbreviations. */
  | 'git'
  /** Go's pflag/cobra (docker, kubectl, helm, gh, pulumi, …): like GNU but no abbreviations, and `-o=v` drops the `=`. */
  | 'pflag'
  /** Go's flag package (go, terraform): `-flag` = `--flag`, `-flag=v` / `-flag v`, no clusters, stops at the first operand. */
  | 'goflag'
  /** curl: GNU-like clusters and abbreviations; no `--long=value` (read as one, unknown, option). */
  | 'curl'
  /** Python argparse/optparse (pip, aws, gcloud, az, httpie): GNU-like with abbreviations; `-o=v` drops the `=`. */
  | 'argparse';

interface FamilyRules {
  /** A long option may be written as any prefix that is unique among the program's long options. */
  readonly abbreviate: boolean;
  /** `-abc` is three short options (otherwise `-abc` is the long option `abc`). */
  readonly shortClusters: boolean;
  /** `-name` is the long option `--name`. */
  readonly singleDashLong: boolean;
  /** Option parsing ends at the first operand. */
  readonly stopAtOperand: boolean;
  /** `--` ends the options. */
  readonly doubleDash: boolean;
  /** `--no-name` turns `--name` off (takes no value). */
  readonly negation: boolean;
  /** `-o=value`: the `=` is not part of the attached value. */
  readonly shortEquals: boolean;
}

const FAMILIES: Readonly<Record<OptionFamily, FamilyRules>> = {
  gnu: { abbreviate: true, shortClusters: true, singleDashLong: false, stopAtOperand: false, doubleDash: true, negation: false, shortEquals: false },
  posix: { abbreviate: false, shortClusters: true, singleDashLong: false, stopAtOperand: true, doubleDash: true, negation: false, shortEquals: false },
  nopt: { abbreviate: true, shortClusters: true, singleDashLong: true, stopAtOperand: false, doubleDash: true, negation: true, shortEquals: true },
  git: { abbreviate: true, shortClusters: true, singleDashLong: false, stopAtOperand: false, doubleDash: true, negation: true, shortEquals: false },
  pflag: { abbreviate: false, shortClusters: true, singleDashLong: false, stopAtOperand: false, doubleDash: true, negation: false, shortEquals: true },
  goflag: { abbreviate: false, shortClusters: false, singleDashLong: true, stopAtOperand: true, doubleDash: true, negation: false, shortEquals: true },
  // Whether `--` ends curl's options has changed across versions: it is not trusted to.
  curl: { abbreviate: true, shortClusters: true, singleDashLong: false, stopAtOperand: false, doubleDash: false, negation: true, shortEquals: false },
  argparse: { abbreviate: true, shortClusters: true, singleDashLong: false, stopAtOperand: false, doubleDash: true, negation: false, shortEquals: true },
};

export interface OptionSyntax {
  readonly family: OptionFamily;
  /** Options that take a value (`-o`, `--output`; goflag: `-chdir`). */
  readonly valued?: ReadonlySet<string>;
  /** Options that take two values (jq's `--arg name value`). */
  readonly valued2?: ReadonlySet<string>;
  /** Options that take no value. */
  readonly flags?: ReadonlySet<string>;
  /** More long option names the program has (for telling an abbreviation from an unknown option). */
  readonly known?: ReadonlySet<string>;
  /** nopt shorthands, without dashes: `C` → `--prefix`, `d` → `--loglevel info`. */
  readonly shorthands?: Readonly<Record<string, readonly string[]>>;
  /** Overrides of the family's rules (rg's parser takes no abbreviations; git's global options neither). */
  readonly abbreviate?: boolean;
  readonly stopAtOperand?: boolean;
  /** Parsing stops at this operand (1: the first; ssh reads options again after its host, so 2). */
  readonly stopAtOperandNumber?: number;
  /** `-5` is an option with a number (head, tail). */
  readonly numericOptions?: boolean;
  /** `valued` lists every option that takes a value: any other takes none (the read-only tables). */
  readonly completeValued?: boolean;
}

export type Arity = 'none' | 'value' | 'unknown';

export interface OptionUse {
  /** Index of the word it is in. */
  readonly at: number;
  /** As written, without its value (`--prefi`, `-o`, `-C`). */
  readonly written: string;
  /** What the program may read it as: one name, several for an ambiguous abbreviation, itself when unknown. */
  readonly names: readonly string[];
  readonly arity: Arity;
  /** `--no-x` (git, nopt): off, so it carries no value. */
  readonly negated: boolean;
  /** The value, attached (`-ofile`, `--o=file`) or the next word. */
  readonly value?: MatchWord;
  /** Index of a separate value word. */
  readonly valueAt?: number;
  /** Second value of a two-value option. */
  readonly value2?: MatchWord;
}

export interface OptionReading {
  readonly options: OptionUse[];
  /** Words that are operands, in order; `maybeValue` when an option before may have taken it as its value. */
  readonly operands: { readonly at: number; readonly maybeValue: boolean }[];
  /** Non-literal words where an option could be. */
  readonly opaque: number[];
  /**
   * Index of the first word the options certainly do not reach: after a `--`, or the operand that stopped parsing
   * (words from here on are operands). `words.length` when parsing reached the end.
   */
  readonly end: number;
  /** A `--` that certainly ended the options sat just before `end`. */
  readonly endedByDashes: boolean;
}

const literal = (value: string): MatchWord => ({ value, literal: true });

/** The family's rules with the syntax's overrides. */
function rulesOf(syntax: OptionSyntax): FamilyRules {
  const base = FAMILIES[syntax.family];
  if (syntax.abbreviate === undefined && syntax.stopAtOperand === undefined) return base;
  return { ...base, abbreviate: syntax.abbreviate ?? base.abbreviate, stopAtOperand: syntax.stopAtOperand ?? base.stopAtOperand };
}

const longNamesCache = new WeakMap<OptionSyntax, readonly string[]>();

/** Every long option name the syntax knows (for abbreviations). */
function longNames(syntax: OptionSyntax): readonly string[] {
  let names = longNamesCache.get(syntax);
  if (!names) {
    const all = new Set<string>();
    for (const set of [syntax.valued, syntax.valued2, syntax.flags, syntax.known]) for (const n of set ?? []) if (n.startsWith('--')) all.add(n);
    names = [...all];
    longNamesCache.set(syntax, names);
  }
  return names;
}

const isKnown = (syntax: OptionSyntax, name: string): boolean =>
  !!(syntax.valued?.has(name) || syntax.valued2?.has(name) || syntax.flags?.has(name) || syntax.known?.has(name));

/** The long option(s) `--name` may be: itself when known, else every known option it abbreviates, else itself. */
export function resolveLong(name: string, syntax: OptionSyntax): string[] {
  if (isKnown(syntax, name) || !rulesOf(syntax).abbreviate) return [name];
  const hits = longNames(syntax).filter((n) => n.startsWith(name));
  return hits.length > 0 ? hits : [name];
}

function arityOf(names: readonly string[], syntax: OptionSyntax): Arity {
  if (names.every((n) => syntax.valued?.has(n) || syntax.valued2?.has(n))) return 'value';
  if (syntax.completeValued || names.every((n) => syntax.flags?.has(n))) return 'none';
  return 'unknown';
}

/** nopt: a word (dashes stripped) as the keys it stands for, with values a shorthand may carry (`-d` = `--loglevel info`). */
function noptExpand(key: string, syntax: OptionSyntax): { names: string[]; negated: boolean; values?: string[] }[] {
  const sh = syntax.shorthands ?? {};
  const exactKey = isKnown(syntax, `--${key}`);
  const expand = (words: readonly string[]) => {
    const out: { names: string[]; negated: boolean; values?: string[] }[] = [];
    for (let i = 0; i < words.length; i++) {
      const name = words[i]!;
      const next = words[i + 1];
      const { names, negated } = noptKey(name.replace(/^-+/, ''), syntax);
      if (next !== undefined && !next.startsWith('-')) {
        out.push({ names, negated, values: [next] });
        i++;
      } else out.push({ names, negated });
    }
    return out;
  };
  if (!exactKey) {
    if (Object.hasOwn(sh, key)) return expand(sh[key]!);
    // A cluster of one-letter shorthands (`-gC`), unless the whole word is a key's abbreviation.
    if (key.length > 1 && [...key].every((c) => Object.hasOwn(sh, c))) return [...key].flatMap((c) => expand(sh[c]!));
    // nopt prefers a unique abbreviation of a key; otherwise a unique abbreviation of a shorthand.
    const keyHits = longNames(syntax).filter((n) => n.startsWith(`--${key}`));
    if (keyHits.length !== 1) {
      const shortHits = Object.keys(sh).filter((s) => s.startsWith(key));
      if (shortHits.length === 1) return expand(sh[shortHits[0]!]!);
    }
  }
  return [noptKey(key, syntax)];
}

function noptKey(key: string, syntax: OptionSyntax): { names: string[]; negated: boolean } {
  let k = key;
  let negations = 0;
  while (k.toLowerCase().startsWith('no-') && !isKnown(syntax, `--${k}`)) {
    negations++;
    k = k.slice(3);
  }
  return { names: resolveLong(`--${k}`, syntax), negated: negations % 2 === 1 };
}

/**
 * Read `words[start…]` as the options of a program of this syntax. Values are attached to their options; operands,
 * non-literal words and where the options end are reported.
 */
export function readOptions(words: readonly MatchWord[], syntax: OptionSyntax, start = 0): OptionReading {
  const rules = rulesOf(syntax);
  const stopAt = rules.stopAtOperand ? (syntax.stopAtOperandNumber ?? 1) : Infinity;
  const options: OptionUse[] = [];
  const operands: { at: number; maybeValue: boolean }[] = [];
  const opaque: number[] = [];
  let certainOperands = 0;
  // Whether the word at hand may be the value of the option before it (an option we cannot tell the arity of).
  let pending = false;

  /** Record an option; returns how many following words it consumed. */
  const add = (at: number, written: string, names: string[], negated: boolean, attached: string | undefined): number => {
    const arity: Arity = negated ? 'none' : arityOf(names, syntax);
    const two = names.length === 1 && syntax.valued2?.has(names[0]!);
    if (attached !== undefined || arity === 'none') {
      options.push({ at, written, names, arity, negated, ...(attached !== undefined ? { value: literal(attached) } : {}) });
      return 0;
    }
    if (arity === 'unknown') {
      options.push({ at, written, names, arity, negated });
      pending = true;
      return 0;
    }
    const next = words[at + 1];
    if (next === undefined) {
      options.push({ at, written, names, arity, negated });
      return 0;
    }
    // nopt will not take a word that looks like an option as a string value: it may be either.
    if (syntax.family === 'nopt' && next.literal && /^-./.test(next.value)) {
      options.push({ at, written, names, arity, negated });
      pending = true;
      return 0;
    }
    if (two) {
      options.push({ at, written, names, arity, negated, value: next, valueAt: at + 1, ...(words[at + 2] ? { value2: words[at + 2] } : {}) });
      return words[at + 2] ? 2 : 1;
    }
    options.push({ at, written, names, arity, negated, value: next, valueAt: at + 1 });
    return 1;
  };

  for (let i = start; i < words.length; i++) {
    const w = words[i]!;
    const maybeValue = pending;
    pending = false;
    if (!w.literal) {
      // `$x` may be an option, its value or an operand.
      opaque.push(i);
      operands.push({ at: i, maybeValue: true });
      pending = true;
      continue;
    }
    const v = w.value;
    if (rules.doubleDash && v === '--') {
      if (maybeValue) continue;
      return { options, operands, opaque, end: i + 1, endedByDashes: true };
    }
    if (v === '-' || !v.startsWith('-') || (v === '--' && !rules.doubleDash)) {
      operands.push({ at: i, maybeValue });
      if (!maybeValue && ++certainOperands >= stopAt) return { options, operands, opaque, end: i, endedByDashes: false };
      continue;
    }
    if (syntax.numericOptions && /^-\d+$/.test(v)) {
      options.push({ at: i, written: '-#', names: ['-#'], arity: 'none', negated: false, value: literal(v.slice(1)) });
      continue;
    }
    const long = v.startsWith('--') || (rules.singleDashLong && !rules.shortClusters);
    if (syntax.family === 'nopt') {
      const eq = v.indexOf('=');
      const key = (eq > 0 ? v.slice(0, eq) : v).replace(/^-+/, '');
      const attached = eq > 0 ? v.slice(eq + 1) : undefined;
      const parts = noptExpand(key, syntax);
      parts.forEach((p, k) => {
        const last = k === parts.length - 1;
        if (p.values) options.push({ at: i, written: v, names: p.names, arity: 'value', negated: p.negated, value: literal(p.values[0]!) });
        else if (last) i += add(i, eq > 0 ? v.slice(0, eq) : v, p.names, p.negated, attached);
        else options.push({ at: i, written: v, names: p.names, arity: arityOf(p.names, syntax), negated: p.negated });
      });
      continue;
    }
    if (long) {
      const eq = v.indexOf('=');
      const written = eq > 0 ? v.slice(0, eq) : v;
      const attached = eq > 0 ? v.slice(eq + 1) : undefined;
      if (rules.singleDashLong) {
        // Go's flag package: `-name` and `--name` are one option, named in the tables with one dash.
        const name = `-${written.replace(/^-+/, '')}`;
        i += add(i, written, [name], false, attached);
        continue;
      }
      let negated = false;
      let names = resolveLong(written, syntax);
      if (rules.negation && written.startsWith('--no-') && !isKnown(syntax, written) && names.length === 1 && names[0] === written) {
        negated = true;
        names = resolveLong(`--${written.slice(5)}`, syntax);
      }
      i += add(i, written, names, negated, attached);
      continue;
    }
    // A multi-letter option of one dash the table names (zip's `-TT`, mvn's `-pl`): whole, not a cluster.
    const eqAt = v.indexOf('=');
    const whole = eqAt > 0 ? v.slice(0, eqAt) : v;
    if (whole.length > 2 && isKnown(syntax, whole)) {
      i += add(i, whole, [whole], false, eqAt > 0 ? v.slice(eqAt + 1) : undefined);
      continue;
    }
    // A cluster of short options: `-rf`, `-ofile`, `-sSo file`.
    let consumed = 0;
    let uncertain = false;
    for (let j = 1; j < v.length; j++) {
      const name = `-${v[j]}`;
      const rest = v.slice(j + 1);
      const arity = arityOf([name], syntax);
      if (arity === 'value') {
        const attached = rest === '' ? undefined : rules.shortEquals && rest.startsWith('=') ? rest.slice(1) : rest;
        consumed = add(i, name, [name], false, attached);
        break;
      }
      if (arity === 'unknown' && rest !== '') {
        // It may take the rest as its value, or be a flag followed by more flags: both readings are kept (the later
        // letters are read as options, and the next word may or may not be a value).
        options.push({ at: i, written: name, names: [name], arity, negated: false, value: literal(rest) });
        uncertain = true;
        continue;
      }
      if (rest === '') consumed = add(i, name, [name], false, undefined);
      else options.push({ at: i, written: name, names: [name], arity, negated: false });
    }
    if (uncertain) {
      // An earlier letter may have taken the rest of the word: a word the last letter took may be an operand.
      if (consumed > 0) operands.push({ at: i + 1, maybeValue: true });
      pending = true;
    }
    i += consumed;
  }
  return { options, operands, opaque, end: words.length, endedByDashes: false };
}

/** The names a list of words carries as options of this syntax (what a rule's own text names). */
export function namedOptions(words: readonly string[], syntax: OptionSyntax): Set<string> {
  const out = new Set<string>();
  for (const o of readOptions(words.map(literal), syntax).options) for (const n of o.names) out.add(n);
  return out;
}
