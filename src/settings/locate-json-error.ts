/**
 * Where JSON text goes wrong, as line and column. `JSON.parse` on Node 20 often reports only "Unexpected token" with
 * no position; this small recursive-descent checker finds the first offending character. Used only after a failure.
 */
export interface JsonErrorLocation {
  readonly line: number;
  readonly column: number;
  readonly problem: string;
}

export function locateJsonError(text: string): JsonErrorLocation | undefined {
  let i = 0;
  const fail = (problem: string): never => {
    throw new LocatedError(problem, i);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma before "}"' : 'expected a "quoted" key');
        string();
        ws();
        if (text[i] !== ':') fail('expected ":" after the key');
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail('expected "," or "}"');
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === ']') fail('trailing comma before "]"');
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail('expected "," or "]"');
      }
    } else if (c === '"') {
      string();
    } else if (c !== undefined && /[-0-9]/.test(c)) {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
      if (!m || m[0].length === 0) fail('malformed number');
      i += m![0].length;
    } else {
      for (const lit of ['true', 'false', 'null']) {
        if (text.startsWith(lit, i)) {
          i += lit.length;
          return;
        }
      }
      fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
    }
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c < ' ') fail('control character inside a string');
      i++;
    }
    fail('unterminated string');
  };
  try {
    value();
    ws();
    if (i < text.length) fail('unexpected text after the JSON value');
    return undefined;
  } catch (error) {
    if (!(error instanceof LocatedError)) throw error;
    const before = text.slice(0, error.offset);
    return { line: before.split('\n').length, column: error.offset - before.lastIndexOf('\n'), problem: error.message };
  }
}

class LocatedError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}
