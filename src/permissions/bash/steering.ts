/**
 * Commands whose text understates what they do, so that no prefix or wildcard allow rule (`Bash(sed *)`) and no mode
 * may approve them on the strength of their first words:
 *  - a sed or awk program outside the known-safe subset: `sed 'w out'`, `sed 's/x/y/e'`, `sed '1e id'`,
 *    `sed 'r /etc/shadow'`, `awk 'BEGIN{system("id")}'` write files, run commands or read other files;
 *  - `find` with an unquoted glob the shell expands first: `find *` in a folder holding a file named `-delete` is
 *    `find -delete …`. Which names the glob will meet is not in the command, so this is a safety check that
 *    bypassPermissions does not pass either (classifierApprovable: false).
 */
import { parseArgs } from './args.js';
import type { MatchWord } from './rule-match.js';
import { READ_ONLY_SPECS, sedScriptOk } from './read-only-specs.js';
import type { WordValue } from './words.js';

const SED = /^g?sed$/;
const AWK = /^[gmn]?awk$/;
const base = (w: MatchWord | undefined): string | undefined => (w?.literal ? w.value.slice(w.value.lastIndexOf('/') + 1) : undefined);
const asWord = (w: MatchWord): WordValue => ({ value: w.value, literal: w.literal, glob: false, unquotedNonAscii: false });

/**
 * Why this sed or awk (program words, name first) may do more than read and print; undefined when its program is in
 * the safe subset. In-place editing (`-i`) is not judged here: a rule must name it (see program-options).
 */
export function unsafeScript(words: readonly MatchWord[]): string | undefined {
  const name = base(words[0]);
  if (name === undefined) return undefined;
  const sed = SED.test(name);
  if (!sed && !AWK.test(name)) return undefined;
  const spec = READ_ONLY_SPECS[sed ? 'sed' : 'awk']!;
  let args = words.slice(1).map(asWord);
  if (sed) args = args.map((w) => (w.literal && /^-i[^-]/.test(w.value) && !w.value.startsWith('-i-') ? { ...w, value: '-i' } : w));
  const parsed = parseArgs(args, spec.args ?? {});
  // A word that only expands at run time could be an option anywhere (GNU tools permute), even `-e 'e id'`.
  if (parsed.opaque.length > 0 || parsed.positionals.some((w) => !w.literal)) return `${name} with a word that could be an option or its program`;
  const unknown = parsed.options.find((o) => !spec.allowed?.has(o.name) && !(sed && (o.name === '-i' || o.name === '--in-place')));
  if (unknown) return `${name} ${unknown.name} is not an option whose effect is known`;
  const checked = sed ? sedScriptOk(parsed, true) : (spec.check?.(parsed) ?? true);
  if (checked !== true) return `${name}'s program writes files, runs commands or reads other files, or cannot be read${typeof checked === 'string' ? ` (${checked})` : ''}`;
  return undefined;
}

const EXPRESSION_START = /^[-(!),]/;

/**
 * `find` (words after wrappers, name first) with a glob that could expand into an action: any glob in its expression
 * (`-name *.txt`), and one among its starting points that could expand to a name starting like an expression (`*`,
 * `?x`; not `src/*`, whose expansions all start with `src/`).
 */
export function findGlobSteering(words: readonly WordValue[]): string | undefined {
  if (base(words[0]) !== 'find') return undefined;
  let inExpression = false;
  for (const w of words.slice(1)) {
    if (w.literal && !w.glob) {
      if (!inExpression && EXPRESSION_START.test(w.value) && !/^-[HLP]$|^-D$|^-O\d*$/.test(w.value)) inExpression = true;
      continue;
    }
    if (!w.glob) continue;
    if (inExpression) return `find with an unquoted glob in its expression (${w.value}): the file names it meets decide what find does`;
    if (!/^[^*?[\\\-(!),]/.test(w.value)) return `find with a glob among its starting points (${w.value}) that a file named like -delete would turn into an action`;
  }
  return undefined;
}
