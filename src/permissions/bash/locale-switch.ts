/**
 * The locale bash reads a command in. In a multibyte locale such as BIG5, BIG5-HKSCS, GBK or GB18030, a byte 0xA1–0xFE
 * followed by `\` is one character to bash: the backslash escapes nothing. The analyser reads every command as UTF-8,
 * so once bash has switched to such a locale, what follows can mean something else to bash than to the engine
 * (`"थ\" ; touch x ; echo थ\""` is one echo in UTF-8 and three commands in BIG5). Bash switches as soon as a locale
 * variable is assigned, exported or not, and reads the command's next lines in the new locale; a shell started with
 * the variable set (`LC_ALL=… bash -c '…'`, `… | bash`) reads all of its code in it. C, POSIX and UTF-8 locales read
 * every byte the engine treats as syntax the same way.
 *
 * So a command that may set a locale variable to anything else, and has more to run after that, cannot be analysed
 * (the engine asks): `localeSwitchReason`. The Bash tool never carries such a value over to a later command either
 * (tools/bash/state-policy.ts).
 */
import type { ShellNames, SimpleCommand } from './types.js';

/** `LC_ALL`, `LC_CTYPE`, every other `LC_*`, `LANG`, `LANGUAGE`. */
export function isLocaleVariable(name: string): boolean {
  return name === 'LANG' || name === 'LANGUAGE' || /^LC_[A-Z_]+$/.test(name);
}

/** C, POSIX, a UTF-8 locale (`en_US.UTF-8`, `C.utf8`, `sr_RS.UTF-8@latin`), or empty (no override). */
export function isSafeLocaleValue(value: string): boolean {
  return value === '' || value === 'C' || value === 'POSIX' || /^[A-Za-z0-9_+-]+\.utf-?8(?:@[A-Za-z0-9_-]+)?$/i.test(value);
}

const LOCALE_NAME = /(?:^|[^A-Za-z0-9_])(?:LC_[A-Z_]+|LANG|LANGUAGE)(?![A-Za-z0-9_])/;
/** Builtins whose arguments name variables they set. */
const SETTERS = new Set(['read', 'printf', 'getopts', 'mapfile', 'readarray', 'wait', 'let']);

/** `NAME=value` as written: a safe locale value only when it is plain (quotes around it at most). */
function writtenValueIsSafe(assignment: string): boolean {
  const eq = assignment.indexOf('=');
  if (eq === -1) return true;
  if (assignment[eq - 1] === '+') return false;
  const m = /^(['"]?)([^'"$`\\]*)\1$/.exec(assignment.slice(eq + 1));
  return m !== null && isSafeLocaleValue(m[2]!);
}

/** Whether one subcommand may set a locale variable to a value that is not C, POSIX or UTF-8. */
function switchesLocale(sub: SimpleCommand): boolean {
  for (const a of sub.assignments) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(a)?.[0] ?? '';
    if (isLocaleVariable(name) && !writtenValueIsSafe(a)) return true;
  }
  if (sub.kind === 'declaration') {
    for (const w of sub.words.slice(1)) {
      const eq = w.value.indexOf('=');
      if (eq === -1) continue;
      const name = w.value.slice(0, eq).replace(/\[.*$/, '').replace(/\+$/, '');
      // `declare -n ref=LC_ALL`: a reference through which a later assignment sets it.
      if (isLocaleVariable(name) ? !w.literal || !isSafeLocaleValue(w.value.slice(eq + 1)) || w.value[eq - 1] === '+' : LOCALE_NAME.test(w.value.slice(eq + 1))) return true;
    }
  }
  const head = sub.strippedWords.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value));
  if (sub.kind === 'command' && head?.literal && SETTERS.has(head.value)) return sub.words.some((w) => LOCALE_NAME.test(w.value));
  return false;
}

function flatten(subs: readonly SimpleCommand[], out: SimpleCommand[] = []): SimpleCommand[] {
  for (const sub of subs) {
    out.push(sub);
    if (sub.inner) flatten(sub.inner, out);
  }
  return out;
}

/**
 * Why the analysis of `command` cannot be trusted because of a locale switch, or undefined. Only a command whose text
 * names a locale variable is looked at.
 */
export function localeSwitchReason(command: string, subcommands: readonly SimpleCommand[], names: ShellNames): string | undefined {
  if (!command.includes('LC_') && !command.includes('LANG')) return undefined;
  const why = 'it sets a locale variable to a value other than C, POSIX or a UTF-8 locale, and bash would read what follows in that character set';
  if ([...names.loops, ...names.defaults].some(isLocaleVariable)) return why;
  const all = flatten(subcommands);
  let at = all.findIndex(switchesLocale);
  if (at === -1) return undefined;
  // `export LC_ALL=…` is its assignment, then the declaration: one statement.
  while (at < all.length - 1 && all[at + 1]!.kind === 'declaration' && all[at + 1]!.text.includes(all[at]!.text)) at++;
  return at < all.length - 1 ? why : undefined;
}
