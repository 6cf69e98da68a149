/**
 * A command is a short process: no wasm function it runs may go to TurboFan, a background compile its exit would wait
 * for (src/tool/wasm-tiering.ts). `toolgate -p` talks to the model through fetch, whose HTTP parser (undici's llhttp)
 * is wasm: with V8's default budget, one answer was enough to send its largest function to TurboFan (~29 KB of wasm,
 * over 100 ms of background compile) and the process sat idle after the answer until it was done. Watched through
 * V8's own trace of each wasm compile; nothing is timed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { repoRoot } from './helpers/cli.js';

let server: ScriptedServer;
let dir: string;

beforeAll(async () => {
  server = await startScriptedServer([{ content: [{ type: 'text', text: 'hello from the script' }] }]);
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-wasm-tiering-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('toolgate -p and V8 tiering', () => {
  it('answers without sending any large wasm function to TurboFan', async () => {
    const out = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--trace-wasm-compilation-times', '--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/cli/main.ts'), '-p', 'hi'],
        { cwd: dir, env: { ...process.env, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url } },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr })),
      );
    });
    expect(out.stdout).toContain('hello from the script');
    // V8 prints its trace on stdout; background compiles are reported when they finish, so the whole output is read.
    const compiled = [...`${out.stdout}${out.stderr}`.matchAll(/Compiled function .*bodysize (\d+)/g)];
    expect(compiled.length).toBeGreaterThan(0); // the trace is there: llhttp was compiled, on the baseline tier
    const turbo = [...`${out.stdout}${out.stderr}`.matchAll(/using TurboFan.*bodysize (\d+)/g)].map((m) => Number(m[1]));
    expect(turbo.filter((size) => size > 5_000)).toEqual([]);
  }, 60_000);
});
