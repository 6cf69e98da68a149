/**
 * The `sed -i` edits the engine can simulate (the seeds' `_simulatedSedEdit`): a strict, safe subset, so that a
 * person can be shown the edit as a diff, what they approved is what is written, and acceptEdits can count it as an
 * edit. Anything outside the subset is not simulated and is judged and run as any other command.
 *
 * The subset: one plain command `sed` (no assignments, redirects, wrappers; every word literal, no glob), with only
 * `-i`/`--in-place` (no backup suffix), `-E`/`-r`/`--regexp-extended`, `-e SCRIPT`/`--expression=SCRIPT`, and one
 * file operand. Each script is one or more substitutions `s<d>regex<d>replacement<d>flags` joined by `;`, with no
 * address, a delimiter from a short list of characters that mean nothing in a regex, and flags among `g`, `i`/`I`
 * and a count. Never `e` (runs the pattern space as a command), `w` (writes a file), `p`, `m`, any other command
 * (`e`, `r`, `w`, `R`, `W`, `q`, …), a newline, or a second file. The text is then run by the real GNU sed with
 * `--sandbox` (which refuses `e`/`r`/`w` itself) on the file's bytes through stdin: a parse here that differed from
 * sed's could make the simulation fail, never make it run or write anything.
 */
import type { SimpleCommand } from './types.js';
import { analyzeBashCommand } from './analyze.js';

export interface SedEdit {
  /** The one file operand, as written (relative to the shell's directory). */
  readonly file: string;
  /** The scripts in order (each a checked list of substitutions). */
  readonly scripts: readonly string[];
  /** `-E`/`-r`: extended regular expressions. */
  readonly extended: boolean;
}

/** Delimiters accepted: none is special in a basic or extended regex, nor in a replacement. */
const DELIMITERS = new Set(['/', '#', ',', ':', '@', '!', '%', '~', '_']);

/** Why this script is not a list of plain substitutions; undefined when it is one. */
export function sedScriptProblem(script: string): string | undefined {
  let i = 0;
  const n = script.length;
  let count = 0;
  for (;;) {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
    if (i >= n) return count === 0 ? 'the script is empty' : undefined;
    if (script[i] !== 's') return `only substitutions (s/…/…/) are simulated, not ${JSON.stringify(script.slice(i, i + 10))}`;
    const delim = script[i + 1];
    if (delim === undefined || !DELIMITERS.has(delim)) return `the delimiter ${JSON.stringify(delim ?? '')} is not one simulated`;
    i += 2;
    for (const part of ['regex', 'replacement']) {
      for (;;) {
        const c = script[i];
        if (c === undefined || c === '\n') return `the ${part} is not terminated`;
        if (c === '\\') {
          const next = script[i + 1];
          if (next === undefined || next === '\n') return `the ${part} has a backslash at its end or before a newline`;
          i += 2;
          continue;
        }
        i++;
        if (c === delim) break;
      }
    }
    let counted = false;
    while (i < n && script[i] !== ';') {
      const f = script[i]!;
      if (f === 'g' || f === 'i' || f === 'I') i++;
      else if (f >= '1' && f <= '9' && !counted) {
        counted = true;
        while (i < n && script[i]! >= '0' && script[i]! <= '9') i++;
      } else if (f === ' ' || f === '\t') {
        while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
        if (i < n && script[i] !== ';') return 'text after the flags';
      } else return `the flag ${JSON.stringify(f)} is not simulated (only g, i, I and a count)`;
    }
    count++;
    if (i < n) i++; // the `;`
  }
}

/** Whether the words are `sed -i` at all (undefined when not); else the simulable edit, or why it is not one. */
export function sedEditOfCommand(sub: SimpleCommand): SedEdit | string | undefined {
  if (sub.kind !== 'command' || !sub.words[0]?.literal || sub.words[0].value !== 'sed') return undefined;
  const words = sub.words.slice(1);
  // Roughly "edits in place"; the exact reading below decides whether it is simulated.
  const inPlace = words.some((w) => w.value.startsWith('--in') || (/^-[^-]/.test(w.value) && w.value.includes('i')));
  if (!inPlace) return undefined;
  if (sub.inner !== undefined || sub.unsafeReason !== undefined) return 'the command cannot be analysed';
  if (sub.assignments.length > 0) return 'it sets variables for sed';
  if (sub.redirects.length > 0) return 'it has redirections';
  const bad = words.find((w) => !w.literal || w.glob);
  if (bad !== undefined) return `${bad.value} is not a literal word`;
  const scripts: string[] = [];
  const operands: string[] = [];
  let extended = false;
  let sawInPlace = false;
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!.value;
    if (w === '--') {
      operands.push(...words.slice(k + 1).map((x) => x.value));
      break;
    }
    if (w === '-i' || w === '--in-place') sawInPlace = true;
    else if (w === '-E' || w === '-r' || w === '--regexp-extended') extended = true;
    else if (/^-[Er]+i$/.test(w)) {
      extended = true;
      sawInPlace = true;
    } else if (/^-[Er]+$/.test(w)) extended = true;
    else if (w === '-e' || w === '--expression') {
      const s = words[++k]?.value;
      if (s === undefined) return `${w} needs a script`;
      scripts.push(s);
    } else if (w.startsWith('--expression=')) scripts.push(w.slice('--expression='.length));
    else if (w.startsWith('-') && w !== '-') return `the option ${w} is not simulated (a backup suffix, or not one of -i, -E, -r, -e)`;
    else operands.push(w);
  }
  if (!sawInPlace) return 'the in-place option has a backup suffix or is combined with others';
  if (scripts.length === 0) {
    const s = operands.shift();
    if (s === undefined) return 'there is no script';
    scripts.push(s);
  }
  if (operands.length !== 1) return operands.length === 0 ? 'there is no file' : 'only an edit of one file is simulated';
  const file = operands[0]!;
  if (file === '' || file === '-') return `${JSON.stringify(file)} is not a file`;
  for (const s of scripts) {
    const why = sedScriptProblem(s);
    if (why !== undefined) return why;
  }
  return { file, scripts, extended };
}

/** The simulable `sed -i` a whole command is, when it is one plain command and one (else undefined). */
export function simulableSedEdit(command: string): SedEdit | undefined {
  let analysis;
  try {
    analysis = analyzeBashCommand(command);
  } catch {
    return undefined;
  }
  if (!analysis.ok || analysis.subcommands.length !== 1) return undefined;
  const edit = sedEditOfCommand(analysis.subcommands[0]!);
  return typeof edit === 'object' ? edit : undefined;
}
