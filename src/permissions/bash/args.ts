/**
 * Arguments as a read-only command's parser reads them (through the one option reader, option-reader.ts): `-rf` =
 * `-r -f`, `--x=y` = `--x y`, `-n5` = `-n 5` for options known to take a value, a unique prefix of a long option is
 * that option (`--out=f` = `--output=f` to GNU getopt_long), everything after `--` positional.
 */
import { readOptions, type OptionFamily, type OptionSyntax } from './option-reader.js';
import type { WordValue } from './words.js';

export interface ParsedOption {
  /** The option as the program reads it (an abbreviation resolved when unique among the known options). */
  readonly name: string;
  readonly value?: WordValue;
}

export interface ParsedArgs {
  readonly options: ParsedOption[];
  readonly positionals: WordValue[];
  /** A word that could not be read: a non-literal option-looking word, or a glob that might expand into options. */
  readonly opaque: WordValue[];
}

export interface ArgSpec {
  /** Options that take a value (`-n`, `--lines`); every other option takes none. */
  readonly valued?: ReadonlySet<string>;
  /** Options that take two values (jq's `--arg name value`). */
  readonly valued2?: ReadonlySet<string>;
  /** Other long options of the program, so their abbreviations are read as them. */
  readonly known?: ReadonlySet<string>;
  /** Treat `-123` as a numeric option (head, tail). */
  readonly numericOptions?: boolean;
  /** Stop option parsing at the first positional (POSIX style; commands that take a command after). */
  readonly posixStop?: boolean;
  /** How the program reads options (default: GNU getopt_long, which takes unique abbreviations). */
  readonly family?: OptionFamily;
  readonly abbreviate?: boolean;
}

const word = (value: string): WordValue => ({ value, literal: true, glob: false, unquotedNonAscii: false });

const syntaxes = new WeakMap<ArgSpec, OptionSyntax>();
function syntaxFor(spec: ArgSpec): OptionSyntax {
  let syntax = syntaxes.get(spec);
  if (!syntax) {
    syntax = {
      family: spec.family ?? 'gnu',
      completeValued: true,
      ...(spec.abbreviate !== undefined ? { abbreviate: spec.abbreviate } : {}),
      ...(spec.valued ? { valued: spec.valued } : {}),
      ...(spec.valued2 ? { valued2: spec.valued2 } : {}),
      ...(spec.known ? { known: spec.known } : {}),
      ...(spec.numericOptions ? { numericOptions: true } : {}),
      ...(spec.posixStop ? { stopAtOperand: true } : {}),
    };
    syntaxes.set(spec, syntax);
  }
  return syntax;
}

export function parseArgs(args: readonly WordValue[], spec: ArgSpec): ParsedArgs {
  const r = readOptions(args, syntaxFor(spec));
  const options: ParsedOption[] = [];
  for (const o of r.options) {
    const name = o.names.length === 1 ? o.names[0]! : o.written;
    const value = o.valueAt !== undefined ? args[o.valueAt] : o.value ? word(o.value.value) : undefined;
    options.push(value ? { name, value } : { name });
    if (o.value2) options.push({ name, value: args[o.valueAt! + 1] });
  }
  const opaqueAt = new Set(r.opaque);
  const positionals = r.operands.filter((o) => !opaqueAt.has(o.at)).map((o) => args[o.at]!);
  const inOptions = r.end - (r.endedByDashes ? 1 : 0);
  for (let i = r.end; i < args.length; i++) if (!positionals.includes(args[i]!)) positionals.push(args[i]!);
  const opaque = r.opaque.map((i) => args[i]!);
  // A glob where an option could be may expand into options.
  for (let i = 0; i < inOptions; i++) {
    const w = args[i]!;
    if (w.literal && w.glob && /^[*?[]/.test(w.value)) opaque.push(w);
  }
  return { options, positionals, opaque };
}

export const has = (parsed: ParsedArgs, ...names: string[]): boolean => parsed.options.some((o) => names.includes(o.name));

export function values(parsed: ParsedArgs, ...names: string[]): (WordValue | undefined)[] {
  return parsed.options.filter((o) => names.includes(o.name)).map((o) => o.value);
}

/**
 * GNU getopt (and git's parse-options) accept any unambiguous prefix of a long option: `--out=f` is `--output=f`.
 * So a long option is unsafe when it equals, or abbreviates, an unsafe one.
 */
export function isUnsafeOption(name: string, unsafe: ReadonlySet<string> | undefined): boolean {
  if (!unsafe) return false;
  if (unsafe.has(name)) return true;
  if (!name.startsWith('--') || name.length < 4) return false;
  for (const u of unsafe) if (u.startsWith('--') && u.startsWith(name)) return true;
  return false;
}
