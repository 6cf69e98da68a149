/**
 * Shell start-up options (issue 21): a shell given a literal `-c` string is judged by the commands in it only when
 * nothing else runs first or changes how the string is read. Anything else counts as running code: a login or
 * interactive shell and rc files (`-l`, `-i`, `--login`, `--rcfile`, `--init-file`), `shopt` settings (`-O`, `+O`),
 * options that change what the words mean (`-k`, `+B`, `-p`), and every fish invocation — fish runs config.fish and
 * its `-C`/`--init-command` strings first, and its code is fish, not bash (`fish -c`'s string is read by fish's own
 * quoting rules). Code strings of fish and of other non-POSIX shells are still handed to deny rules.
 */
import type { MatchWord } from './rule-match.js';
import { readOptions, type OptionSyntax } from './option-reader.js';

type Words = readonly MatchWord[];

/** Single-letter options that neither run code nor change how the `-c` string is read (zsh's letters mean other things). */
const HARMLESS_LETTERS = new Set([...'ceuxvfnCEThaPtsBmb']);
const ZSH_HARMLESS_LETTERS = new Set([...'ceuxvfns']);
/** `-o NAME` / `+o NAME` settings with the same property (zsh spells them without `_`, in any case). */
const HARMLESS_SETTINGS = new Set(['errexit', 'nounset', 'pipefail', 'xtrace', 'verbose', 'noglob', 'noclobber', 'errtrace', 'functrace', 'noexec', 'allexport', 'notify', 'nolog', 'posix', 'norcs', 'noglobalrcs', 'rcs', 'globalrcs', 'noclobber', 'braceexpand', 'hashall', 'monitor']);
/** Long options of bash/zsh with the same property. */
const HARMLESS_LONG = new Set(['--norc', '--noprofile', '--noediting', '--posix', '--verbose', '--restricted', '--no-rcs', '--no-globalrcs']);
/** `+B` turns brace expansion off; `-k`, `-p` change what assignments and the environment mean. */
const CHANGES_WORDS = /^\+[A-Za-z]*B/;

const setting = (name: string): string => name.toLowerCase().replace(/_/g, '');

/** Why this shell invocation (`words[0]` a shell) runs more than its `-c` string, if it does. */
export function shellStartupReason(words: Words): string | undefined {
  const shell = words[0]?.literal ? words[0].value.slice(words[0].value.lastIndexOf('/') + 1) : undefined;
  if (shell === undefined) return undefined;
  if (shell === 'fish') return 'fish runs its configuration and any --init-command first, and its code is fish, not bash';
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) return `${shell} with an option that cannot be known (${w.value}) may run startup files first`;
    const v = w.value;
    if (v === '--' || v === '-' || !/^[-+]/.test(v)) return undefined;
    if (/^[-+]o$/.test(v)) {
      const name = words[i + 1];
      if (!name?.literal || !HARMLESS_SETTINGS.has(setting(name.value))) return `${shell} ${v} ${name?.value ?? ''} changes how the shell runs its code`.trimEnd();
      i++;
      continue;
    }
    if (v.startsWith('--')) {
      // zsh: `--NAME` is `-o NAME`.
      if (HARMLESS_LONG.has(v) || (shell === 'zsh' && HARMLESS_SETTINGS.has(setting(v.slice(2).replace(/^no-?/, 'no'))))) continue;
      return `${shell} ${v} runs startup (rc) files or more than its command string first`;
    }
    if (CHANGES_WORDS.test(v)) return `${shell} ${v} changes how the words of its command string are read`;
    const letters = shell === 'zsh' ? ZSH_HARMLESS_LETTERS : HARMLESS_LETTERS;
    const bad = [...v.slice(1)].find((c) => !letters.has(c));
    if (bad !== undefined) {
      const why = bad === 'l' || bad === 'i' ? 'runs startup (rc) files first' : bad === 'O' ? 'changes shell options (shopt) before its command string' : 'changes how the shell runs its command string';
      return `${shell} ${v} ${why}`;
    }
  }
  return undefined;
}

/** fish's options (GNU-style, abbreviations included; options stop at the first script or argument). */
const FISH: OptionSyntax = {
  family: 'gnu',
  stopAtOperand: true,
  valued: new Set(['-c', '--command', '-C', '--init-command', '-d', '--debug', '-o', '--debug-output', '-p', '--profile', '--profile-startup', '-f', '--features']),
  flags: new Set(['-h', '--help', '-i', '--interactive', '-l', '--login', '-N', '--no-config', '-n', '--no-execute', '-P', '--private', '-v', '--version', '--print-rusage-self', '--print-debug-categories']),
};

/** Every code string a fish invocation runs: each `-c`/`--command` and `-C`/`--init-command` value. */
export function fishCode(words: Words): MatchWord[] {
  return readOptions(words, FISH, 1)
    .options.filter((o) => o.value !== undefined && o.names.some((n) => n === '-c' || n === '--command' || n === '-C' || n === '--init-command'))
    .map((o) => o.value!);
}

/** Shells whose code is not bash: their command strings are handed to deny rules, never judged as read-only. */
export const OTHER_SHELLS = new Set(['csh', 'tcsh', 'pwsh', 'powershell', 'nu', 'elvish', 'xonsh', 'rc', 'es', 'ion', 'oil', 'osh', 'ysh']);

/** The command string of `csh -c '…'`, `pwsh -Command '…'` and the like. */
export function otherShellCode(words: Words): MatchWord[] {
  const out: MatchWord[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) continue;
    if (/^-(-?command|c|Command|EncodedCommand|ec)$/i.test(w.value) && words[i + 1]) out.push(words[i + 1]!);
    else if (/^--?command=/i.test(w.value)) out.push({ value: w.value.slice(w.value.indexOf('=') + 1), literal: true });
  }
  return out;
}
