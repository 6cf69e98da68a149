/**
 * The grammar's wasm stays on V8's baseline compiler for the first few dozen commands: its lexer, one 160 KB function,
 * would otherwise go to TurboFan on the first parse (a long background compile that a short process waits for before
 * it exits). Watched through
 * V8's own trace of each wasm compile, in a child process with the trace on. V8's budget for everything else is put
 * back: a wasm module compiled after the parser tiers up as usual.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const parserUrl = new URL('./parser.js', import.meta.url).href.replace(/\.js$/, '.ts');

// A loop that runs long enough to tier up under V8's default budget: (func (result i32) loop 5M times).
const HOT_WASM = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 26, 1, 24, 1, 1, 127, 3, 64,
  32, 0, 65, 1, 106, 34, 0, 65, 192, 150, 177, 2, 72, 13, 0, 11, 32, 0, 11,
];

const HOT_BODY_SIZE = 24;

function traceCompiles(script: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', '--trace-wasm-compilation-times', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../../..'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the bash parser and V8 tiering', () => {
  it('parses many commands without sending the grammar to TurboFan, and leaves other wasm to tier up', () => {
    const out = traceCompiles(`
      const { loadBashParser, parseBash } = await import(${JSON.stringify(parserUrl)});
      await loadBashParser();
      for (let i = 0; i < 20; i++) {
        if (!parseBash(\`npm run test -- --watch=false && rg foo\${i} src | head -20; for f in *.ts; do echo "$f"; done\`)) throw new Error('no parse');
      }
      console.log('PARSED');
      const { instance } = await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(HOT_WASM)}));
      for (let i = 0; i < 20; i++) instance.exports.f();
      console.log('HOT DONE');
    `);
    expect(out).toContain('HOT DONE');
    // Background compiles are reported when they finish, which may be after the parsing: the whole trace is read.
    const turbo = [...out.matchAll(/using TurboFan.*bodysize (\d+)/g)].map((m) => Number(m[1]));
    // No big function of tree-sitter's or the grammar's is optimised (a few small ones may be: they cost nothing).
    expect(turbo.filter((size) => size > 20_000)).toEqual([]);
    // The module compiled afterwards has V8's usual budget back: its hot loop (a 24-byte body) is optimised.
    expect(turbo).toContain(HOT_BODY_SIZE);
  });
});
