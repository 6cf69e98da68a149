/**
 * Scripts inside "read-only" commands: a sed script may write (`w`, `W`, `s///w`), run (`e`, `s///e`) or read other
 * files (`r`, `R`); an awk program may run commands (`system()`, `|`) or write (`print > "f"`). Only scripts we can
 * fully read and that do none of that count as read-only.
 */

/**
 * The sed commands that only select, print, substitute, branch or keep lines aside (`h`, `H`, `g`, `G`: the classic
 * `sed '1!G;h;$!d'` prints a file backwards). `x`, the exchange of the two buffers, is asked as issue 32 lists it
 * among the commands beyond plain printing — it writes, runs and reads nothing, so a prefix allow rule still covers it.
 */
const PRINTING_SED = new Set(['p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', '=', 'z', 'F', 'l', 'q', 'Q']);
/** What the sed commands that reach beyond the input do, for the reason a trace gives. */
const SED_EFFECTS: Readonly<Record<string, string>> = {
  e: 'runs a command',
  w: 'writes a file',
  W: 'writes a file',
  r: 'reads another file',
  R: 'reads another file',
};

/** Index after a delimited part starting at `i` (just past the opening delimiter), or -1. */
function skipDelimited(s: string, i: number, delim: string): number {
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '\n' && delim !== '\n') return -1;
    if (ch === delim) return i + 1;
  }
  return -1;
}

function skipAddress(s: string, i: number): number {
  const one = (k: number): number => {
    if (s[k] === '$') return k + 1;
    if (s[k] === '/' || s[k] === '\\') {
      const delim = s[k] === '\\' ? s[k + 1] : '/';
      if (delim === undefined) return -1;
      let end = skipDelimited(s, s[k] === '\\' ? k + 2 : k + 1, delim);
      if (end === -1) return -1;
      while (s[end] === 'I' || s[end] === 'M') end++;
      return end;
    }
    const m = /^\d+(~\d+)?/.exec(s.slice(k));
    return m ? k + m[0].length : k;
  };
  let j = one(i);
  if (j === -1) return -1;
  if (j > i && s[j] === ',') {
    const m = /^[+~]\d+/.exec(s.slice(j + 1));
    j = m ? j + 1 + m[0].length : one(j + 1);
    if (j === -1) return -1;
  }
  while (s[j] === ' ' || s[j] === '\t') j++;
  if (s[j] === '!') j++;
  while (s[j] === ' ' || s[j] === '\t') j++;
  return j;
}

/**
 * Index after a label (`:a`, `b a`), or -1. GNU sed ends a label at a blank, `;` or `}` and reads what follows as the
 * next command — `:x e id` runs id, `bx w f` writes f — while BSD sed takes the rest of the line. Only a label both
 * read alike passes: nothing but blanks up to `;`, `}`, a newline or the end, and no trailing backslash on the rest of
 * its line (BSD's label text would otherwise be read here as `a` text or an `s` that swallows the next line).
 */
function skipLabel(s: string, i: number): number {
  while (s[i] === ' ' || s[i] === '\t') i++;
  while (i < s.length && !/[\s;}]/.test(s[i]!)) i++;
  while (s[i] === ' ' || s[i] === '\t') i++;
  if (i < s.length && !/[\n;}]/.test(s[i]!)) return -1;
  const eol = s.indexOf('\n', i);
  return s.slice(i, eol === -1 ? s.length : eol).endsWith('\\') ? -1 : i;
}

/**
 * Why a sed script is not plain printing, or undefined when every command in it only selects, prints, substitutes
 * (flags `g`, `p`, `i`/`I`, `m`/`M`, a number) or branches. Anything this reader does not know is a reason too.
 * `holdSpace`: `x` counts as harmless too (it neither writes, runs nor reads other files).
 */
export function sedScriptProblem(script: string, holdSpace = false): string | undefined {
  let i = 0;
  const s = script;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === ';' || ch === '}') {
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    i = skipAddress(s, i);
    if (i === -1 || i >= s.length) return 'an address this reader cannot follow';
    const cmd = s[i]!;
    i++;
    if (cmd === '{') continue;
    if (PRINTING_SED.has(cmd)) {
      while (/[\d ]/.test(s[i] ?? '')) i++;
      continue;
    }
    if (cmd === 'x') {
      if (!holdSpace) return '`x` exchanges the hold and pattern spaces, which is beyond plain printing';
      continue;
    }
    if (cmd === ':' || cmd === 'b' || cmd === 't' || cmd === 'T') {
      i = skipLabel(s, i);
      if (i === -1) return `text after a \`${cmd}\` label, which sed versions read differently (GNU sed runs \`:x e id\`)`;
      continue;
    }
    if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
      // Text to the end of the line; a trailing backslash continues it.
      while (i < s.length && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
      continue;
    }
    if (cmd === 's' || cmd === 'y') {
      const delim = s[i];
      if (delim === undefined || delim === '\n' || delim === '\\') return `a \`${cmd}\` command this reader cannot follow`;
      let j = skipDelimited(s, i + 1, delim);
      if (j !== -1) j = skipDelimited(s, j, delim);
      if (j === -1) return `a \`${cmd}\` command this reader cannot follow`;
      if (cmd === 's') {
        while (j < s.length && /[gpiImM0-9]/.test(s[j]!)) j++;
        const flag = s[j];
        if (flag === 'e') return '`s///e` runs the pattern space as a command';
        if (flag === 'w') return '`s///w` writes a file';
        // Any other flag or garbage: not ours to allow.
        if (flag !== undefined && !/[\s;}#]/.test(flag)) return `the \`s\` flag \`${flag}\` is not one this reader knows`;
      }
      i = j;
      continue;
    }
    const effect = SED_EFFECTS[cmd];
    return effect !== undefined ? `\`${cmd}\` ${effect}` : `\`${cmd}\` is not a sed command this reader knows as printing`;
  }
  return undefined;
}

/** Blank out awk string literals so their contents are not mistaken for code. */
function stripAwkStrings(program: string): string {
  return program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
}

/** True when an awk program cannot run commands, write files or read files other than its inputs. */
export function isSafeAwkProgram(program: string): boolean {
  const p = stripAwkStrings(program);
  if (/\bsystem\s*\(|\bgetline\b|@\s*(load|include|namespace)|\bclose\s*\(|\bfflush\s*\(|\bPROCINFO\b/.test(p)) return false;
  // Pipes to or from commands (`print | "sh"`, `"cmd" | getline`); `||` is logical or.
  if (p.replace(/\|\|/g, '').includes('|')) return false;
  // `print … > "file"` / `>>`: a `>` at paren depth 0 in a print statement is a redirection.
  const re = /\bprintf?\b/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(p))) {
    let depth = 0;
    for (let k = m.index + m[0].length; k < p.length; k++) {
      const c = p[k]!;
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (depth <= 0 && (c === ';' || c === '}' || c === '\n')) break;
      else if (depth <= 0 && c === '>') return false;
    }
  }
  return true;
}
