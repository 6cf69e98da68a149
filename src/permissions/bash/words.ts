/**
 * Reducing a tree-sitter word node to the string bash would pass as one argument, or saying it cannot be: anything
 * that expands (`$x`, `$(…)`, `{a,b}`, `~user`) is non-literal. Unquoted glob characters keep a word literal but are
 * flagged, because the shell may replace it with file names (even ones that start with `-`).
 */
import type { SyntaxNode } from './parser.js';
import { hasNonAscii } from './unicode.js';

export interface WordValue {
  /** Quote-removed value for a literal word; the source text otherwise. */
  readonly value: string;
  readonly literal: boolean;
  /** Unquoted `*`, `?` or `[` (pathname expansion may apply). */
  readonly glob: boolean;
  /** Non-ASCII characters outside quotes. */
  readonly unquotedNonAscii: boolean;
}

function unescapeUnquoted(text: string): { value: string; glob: boolean; brace: boolean } {
  let value = '';
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) {
        value += '\\';
      } else if (next !== '\n') {
        value += next;
      }
      i++;
      continue;
    }
    if (ch === '*' || ch === '?' || ch === '[') glob = true;
    value += ch;
  }
  // Brace expansion turns one word into several: `{rm,-rf,/}`, `{1..3}`. Escaped braces were removed above only
  // from `value`, so look at the raw text with escapes dropped.
  const brace = text.includes('{') && /\{[^{}]*(,|\.\.)[^{}]*\}/.test(text.includes('\\') ? text.replace(/\\./gs, '__') : text);
  return { value, glob, brace };
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([\\"$`\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decode `$'…'`; undefined for escapes we do not model (`\c`). */
export function decodeAnsiC(body: string): string | undefined {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    i++;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    let m: RegExpExecArray | null;
    const rest = body.slice(i + 1);
    if (e === 'x' && (m = /^[0-9a-fA-F]{1,2}/.exec(rest))) {
      out += String.fromCharCode(parseInt(m[0], 16));
      i += m[0].length;
    } else if (/[0-7]/.test(e)) {
      m = /^[0-7]{0,2}/.exec(rest);
      const digits = e + (m ? m[0] : '');
      out += String.fromCharCode(parseInt(digits, 8) & 0xff);
      i += digits.length - 1;
    } else if ((e === 'u' || e === 'U') && (m = (e === 'u' ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/).exec(rest))) {
      const cp = parseInt(m[0], 16);
      if (cp > 0x10ffff) return undefined;
      out += String.fromCodePoint(cp);
      i += m[0].length;
    } else if (e === 'c') {
      return undefined;
    } else {
      out += '\\' + e;
    }
  }
  return out;
}

/**
 * Expansions hidden in text tree-sitter left as a plain leaf: it does not parse backticks in heredoc bodies or in
 * `${x:-`cmd`}`. 'command' when bash would run something, 'variable' when it would substitute a value.
 */
export function hiddenExpansion(text: string): 'command' | 'variable' | undefined {
  let found: 'variable' | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '`') return 'command';
    if (ch === '$') {
      const next = text[i + 1] ?? '';
      if (next === '(') return 'command';
      if (next === '{' || next === '[' || /[A-Za-z0-9_@*#?$!-]/.test(next)) found = 'variable';
    }
  }
  return found;
}

const NON_LITERAL = (node: SyntaxNode, extra?: Partial<WordValue>): WordValue => ({
  value: node.text,
  literal: false,
  glob: false,
  unquotedNonAscii: false,
  ...extra,
});

/** Evaluate one argument-like node. */
export function evaluateWord(node: SyntaxNode): WordValue {
  switch (node.type) {
    case 'word':
    case 'number': {
      const text = node.text;
      const { value, glob, brace } = unescapeUnquoted(text);
      const unquotedNonAscii = hasNonAscii(text);
      if (text.includes('$') || text.includes('`')) {
        if (hiddenExpansion(text)) return NON_LITERAL(node, { unquotedNonAscii });
      }
      // `(` in a bare word only appears with extglob (`!(x)`, `@(a|b)`), which expands like a glob.
      if (brace || ((text.includes('(') || text.includes(')')) && /(^|[^\\])[()]/.test(text))) return NON_LITERAL(node, { unquotedNonAscii });
      return { value, literal: true, glob, unquotedNonAscii };
    }
    case 'raw_string':
      return { value: node.text.slice(1, -1), literal: true, glob: false, unquotedNonAscii: false };
    case 'ansi_c_string': {
      const decoded = decodeAnsiC(node.text.slice(2, -1));
      return decoded === undefined ? NON_LITERAL(node) : { value: decoded, literal: true, glob: false, unquotedNonAscii: false };
    }
    case 'string': {
      let value = '';
      for (const child of node.children) {
        if (!child) continue;
        if (child.type === '"') continue;
        if (child.type === 'string_content' && !hiddenExpansion(child.text)) value += unescapeDoubleQuoted(child.text);
        else return NON_LITERAL(node);
      }
      return { value, literal: true, glob: false, unquotedNonAscii: false };
    }
    case 'translated_string': {
      const inner = node.namedChildren[0];
      if (!inner) return NON_LITERAL(node);
      const v = evaluateWord(inner);
      return v.literal ? v : NON_LITERAL(node);
    }
    case 'concatenation': {
      let value = '';
      // Unquoted parts as written (quoted parts blanked): `{a,/etc/passwd}` arrives as three words.
      let skeleton = '';
      let literal = true;
      let glob = false;
      let unquotedNonAscii = false;
      const children = node.children;
      for (let i = 0; i < children.length; i++) {
        const child = children[i];
        if (!child) continue;
        if (!child.isNamed) {
          // `$"…"` (locale translation) shows up as a bare `$` before a string; any other bare token is literal.
          if (child.type === '$' && children[i + 1]?.type === 'string') continue;
          value += child.text;
          continue;
        }
        skeleton += child.type === 'word' ? child.text : '_';
        const v = evaluateWord(child);
        if (!v.literal) literal = false;
        glob ||= v.glob;
        unquotedNonAscii ||= v.unquotedNonAscii;
        value += v.value;
      }
      if (literal && unescapeUnquoted(skeleton).brace) literal = false;
      return literal ? { value, literal, glob, unquotedNonAscii } : NON_LITERAL(node, { unquotedNonAscii, glob });
    }
    default:
      return NON_LITERAL(node, { unquotedNonAscii: false });
  }
}
