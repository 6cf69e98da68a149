/**
 * Words that only expand at run time (`$X`, `$(cmd)`) in the few commands the read-only classifier accepts them in
 * (echo, printf, test): allowed only where whatever the value is cannot change what the command does. `echo $X`
 * prints, whatever X is. `printf "$X"` could be `printf -v PATH …` (sets a variable the later commands run with);
 * `test $X` / `[ $X ]` could split into `-v 'a[$(id)]'`, which bash evaluates (the subscript runs `id`).
 */
import type { WordValue } from './words.js';

/** Unquoted expansion or glob: the word may become several words, or an option. */
export function mayBecomeSeveralWords(w: WordValue): boolean {
  if (w.literal) return w.glob;
  // The source text with its quoted parts removed: what is left expands unquoted.
  const bare = w.value.replace(/'[^']*'|"(?:[^"\\]|\\.)*"|\\./gs, '');
  return /[$`]/.test(bare) || w.glob;
}

/** printf's options come before its format: an expansion there could be `-v NAME`. */
export function printfOptionExpansion(args: readonly WordValue[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.literal) return 'printf with an expansion where an option could be (-v sets a variable)';
    if (w.value === '--' || !w.value.startsWith('-')) return undefined;
    if (w.value === '-v') i++;
  }
  return undefined;
}

const UNARY = /^-[abcdefghknoprstuwxzGLNOS]$/;
const BINARY = /^(=|==|!=|<|>|-eq|-ne|-lt|-le|-gt|-ge|-nt|-ot|-ef)$/;

/**
 * The arguments `[` receives, operators included (the parser keeps only operands as words), from its text: once no
 * expansion is unquoted, words end exactly at unquoted blanks. A word with `$` or a backtick outside single quotes
 * is an expansion.
 */
export function bracketArgs(text: string): WordValue[] {
  const body = text.replace(/^\[\s*/, '').replace(/\s*\]$/, '');
  const out: WordValue[] = [];
  let value = '';
  let expands = false;
  let started = false;
  let quote: string | null = null;
  const end = () => {
    if (started) out.push({ value, literal: !expands, glob: false, unquotedNonAscii: false });
    value = '';
    expands = false;
    started = false;
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else value += c;
    } else if (c === '\\' && i + 1 < body.length) {
      value += body[++i];
      started = true;
    } else if (quote === null && /\s/.test(c)) {
      end();
    } else if (c === "'" || c === '"') {
      quote = quote === c ? null : quote ?? c;
      started = true;
    } else {
      if (c === '$' || c === '`') expands = true;
      value += c;
      started = true;
    }
  }
  end();
  return out;
}

/**
 * `test …` / `[ … ]` (not `[[`, which the parser reads whole): every expansion must be quoted (one word) and sit where
 * bash takes an operand, never an operator: POSIX decides by the number of arguments, up to four. `words` are the
 * parser's words (to find unquoted expansions); `args` what the command receives, operators included.
 */
export function testExpansionReason(words: readonly WordValue[], args: readonly WordValue[] = words): string | undefined {
  if (words.every((w) => w.literal && !w.glob)) return undefined;
  if (words.some(mayBecomeSeveralWords)) return 'test with an unquoted expansion, which could split into operators (-v evaluates code)';
  const lit = (w: WordValue | undefined, re: RegExp): boolean => w !== undefined && w.literal && re.test(w.value);
  const shape = (a: readonly WordValue[]): boolean => {
    switch (a.length) {
      case 0:
      case 1:
        return true;
      case 2:
        return lit(a[0], /^!$/) || lit(a[0], UNARY);
      case 3:
        return lit(a[1], BINARY) || (lit(a[0], /^!$/) && shape(a.slice(1))) || (lit(a[0], /^\($/) && lit(a[2], /^\)$/));
      case 4:
        return (lit(a[0], /^!$/) && shape(a.slice(1))) || (lit(a[0], /^\($/) && lit(a[3], /^\)$/) && shape(a.slice(1, 3)));
      default:
        return false;
    }
  };
  return shape(args) ? undefined : 'test with an expansion where an operator could be';
}
