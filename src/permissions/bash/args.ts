/**
 * GNU-style argument normalisation for the read-only classifier: `-rf` = `-r -f`, `--x=y` = `--x y`, `-n5` =
 * `-n 5` for options known to take a value, everything after `--` positional.
 */
import type { WordValue } from './words.js';

export interface ParsedOption {
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
  /** Options that take a value (`-n`, `--lines`). */
  readonly valued?: ReadonlySet<string>;
  /** Options that take two values (jq's `--arg name value`). */
  readonly valued2?: ReadonlySet<string>;
  /** Treat `-123` as a numeric option (head, tail). */
  readonly numericOptions?: boolean;
  /** Stop option parsing at the first positional (POSIX style; commands that take a command after). */
  readonly posixStop?: boolean;
}

const word = (value: string): WordValue => ({ value, literal: true, glob: false, unquotedNonAscii: false });

export function parseArgs(args: readonly WordValue[], spec: ArgSpec): ParsedArgs {
  const options: ParsedOption[] = [];
  const positionals: WordValue[] = [];
  const opaque: WordValue[] = [];
  const valued = spec.valued;
  let onlyPositionals = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (onlyPositionals) {
      positionals.push(w);
      continue;
    }
    if (!w.literal) {
      // `$x` may expand to an option; `"$x"` too (`"-rf"` is still an option).
      opaque.push(w);
      continue;
    }
    const v = w.value;
    if (w.glob && /^[*?[]/.test(v)) opaque.push(w);
    if (v === '--') {
      onlyPositionals = true;
      continue;
    }
    if (v === '-' || !v.startsWith('-')) {
      positionals.push(w);
      if (spec.posixStop) onlyPositionals = true;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      if (eq > 0) {
        options.push({ name: v.slice(0, eq), value: word(v.slice(eq + 1)) });
      } else if (spec.valued2?.has(v)) {
        options.push({ name: v, value: args[i + 1] }, { name: v, value: args[i + 2] });
        i += 2;
      } else if (valued?.has(v)) {
        options.push({ name: v, value: args[i + 1] });
        i++;
      } else {
        options.push({ name: v });
      }
      continue;
    }
    if (spec.numericOptions && /^-\d+$/.test(v)) {
      options.push({ name: '-#', value: word(v.slice(1)) });
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const name = `-${v[j]}`;
      if (valued?.has(name)) {
        const rest = v.slice(j + 1);
        if (rest.length > 0) options.push({ name, value: word(rest) });
        else {
          options.push({ name, value: args[i + 1] });
          i++;
        }
        break;
      }
      options.push({ name });
    }
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
