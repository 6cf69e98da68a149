/**
 * Scripts inside "read-only" commands: a sed script may write (`w`, `s///w`), run (`e`, `s///e`) or read other
 * files (`r`); an awk program may run commands (`system()`, `|`) or write (`print > "f"`). Only scripts we can
 * fully read and that do none of that count as read-only.
 */

const SIMPLE_SED = new Set(['p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', 'l', 'L', 'q', 'Q']);

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

/** True when every command of a sed script is one we know does not write, execute or read other files. */
export function isSafeSedScript(script: string): boolean {
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
    if (i === -1 || i >= s.length) return false;
    const cmd = s[i]!;
    i++;
    if (cmd === '{') continue;
    if (SIMPLE_SED.has(cmd)) {
      while (/[\d ]/.test(s[i] ?? '')) i++;
      continue;
    }
    if (cmd === ':' || cmd === 'b' || cmd === 't' || cmd === 'T') {
      while (i < s.length && s[i] !== '\n' && s[i] !== ';') i++;
      continue;
    }
    if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
      // Text to the end of the line; a trailing backslash continues it.
      while (i < s.length && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
      continue;
    }
    if (cmd === 's' || cmd === 'y') {
      const delim = s[i];
      if (delim === undefined || delim === '\n' || delim === '\\') return false;
      let j = skipDelimited(s, i + 1, delim);
      if (j === -1) return false;
      j = skipDelimited(s, j, delim);
      if (j === -1) return false;
      if (cmd === 's') {
        while (j < s.length && /[gpiImM0-9]/.test(s[j]!)) j++;
        // Any other flag (`w file`, `e`) or garbage: not ours to allow.
        if (j < s.length && !/[\s;}#]/.test(s[j]!)) return false;
      }
      i = j;
      continue;
    }
    return false;
  }
  return true;
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
