/**
 * The Bash session keeps its environment: what one command exports (or unsets, or defines as a function) is where the
 * next one starts — through the real runtime, the real executor and real bash, in real temp directories.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import type { ToolRuntime } from '../src/agent/types.js';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse } from '../src/testing/index.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../src/tool/tool.js';
import { detectSandbox } from '../src/tools/bash/sandbox.js';
import { shutdownSandboxRuntime } from '../src/tools/bash/sandbox-runtime.js';
import { contextOf } from '../src/agent/runtime-context.js';

let dir: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-env-')));
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await shutdownSandboxRuntime();
});

async function runtime(settings: Record<string, unknown> = {}, extra: Parameters<typeof createToolRuntime>[0] = {}): Promise<ToolRuntime> {
  const r = await createToolRuntime({
    cwd: dir,
    sessionDir: path.join(dir, '.session'),
    mode: 'bypassPermissions',
    settings: { sources: [], object: settings },
    ...extra,
  });
  runtimes.push(r);
  return r;
}

let ids = 0;
const bash = (command: string, extra: Record<string, unknown> = {}): ToolUseBlock =>
  ({ type: 'tool_use', id: `toolu_env_${++ids}`, name: 'Bash', input: { command, ...extra } }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

/** One Bash call as its own run (its own assistant message); returns the result text. */
async function sh(rt: ToolRuntime, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { results } = await rt.run([bash(command, extra)]);
  return text(results[0]!);
}

describe('the Bash session keeps its environment', () => {
  it('a venv activated in one call is the python of the next', async () => {
    const venv = path.join(dir, '.venv');
    execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
    const rt = await runtime();
    // (Its `deactivate` function is kept too, unless a program of that name is on PATH: pyenv-virtualenv has one.)
    expect(await sh(rt, 'source .venv/bin/activate')).not.toMatch(/Exit code|VIRTUAL_ENV|PATH/);
    expect(await sh(rt, `python3 -c 'import sys; print(sys.prefix)'`)).toBe(venv);
    expect(await sh(rt, 'echo "$VIRTUAL_ENV"')).toBe(venv);
  });

  it('an export in a failing command persists; unset persists; plain shell variables do not', async () => {
    process.env.TOOLGATE_TEST_INHERITED = 'from-parent';
    try {
      const rt = await runtime();
      expect(await sh(rt, 'export A=1 BASH_ENV=./startup.sh; plain=2; unset TOOLGATE_TEST_INHERITED; false')).toMatch(/^Exit code 1/);
      expect(await sh(rt, 'echo "A=$A plain=${plain-unset} inherited=${TOOLGATE_TEST_INHERITED-unset} ${BASH_ENV-no-bash-env}"')).toBe(
        'A=1 plain=unset inherited=unset no-bash-env',
      );
      // A command that cannot change a variable is not read back (shell-script.ts): the state stays as it was.
      await sh(rt, 'ls -la | head -1');
      expect(await sh(rt, 'echo "A=$A"')).toBe('A=1');
      await sh(rt, 'unset A');
      expect(await sh(rt, 'echo "A=${A-unset}"')).toBe('A=unset');
      // PATH changes carry over too.
      await sh(rt, `mkdir -p bin && printf '#!/bin/sh\\necho mine\\n' > bin/mytool && chmod +x bin/mytool && export PATH="${dir}/bin:$PATH"`);
      expect(await sh(rt, 'mytool')).toBe('mine');
    } finally {
      delete process.env.TOOLGATE_TEST_INHERITED;
    }
  });

  it('functions carry over, but not to child processes, and never under the name of a command', async () => {
    const rt = await runtime();
    const defined = await sh(rt, 'greet() { echo "hi $1"; }; ls() { echo fake; }');
    expect(defined).toContain('not kept for later commands: the function ls');
    expect(await sh(rt, 'greet you; bash -c "type greet" >/dev/null 2>&1 || echo "not in children"; type -t ls')).toBe('hi you\nnot in children\nfile');
    await sh(rt, 'unset -f greet');
    expect(await sh(rt, 'type -t greet || echo gone')).toBe('gone');
  });

  it('a command killed halfway keeps nothing; a background task starts from the state of its start and gives nothing back', async () => {
    const rt = await runtime({ toolgate: { bash: { disableBackgroundTasks: true } } });
    expect(await sh(rt, 'export K=1; sleep 30', { timeout: 500 })).toMatch(/killed/);
    expect(await sh(rt, 'echo "K=${K-unset}"')).toBe('K=unset');

    const bg = await runtime();
    await sh(bg, 'export BG=before');
    const started = await bg.run([bash('echo "start:$BG"; export BG=after LEAK=1; echo end', { run_in_background: true })]);
    const out = text(started.results[0]!);
    const id = /with ID: (\S+)\./.exec(out)![1]!;
    const task = await contextOf(bg).services.tasks!.wait(id, { timeoutMs: 10_000 });
    expect(task?.status).toBe('completed');
    expect(readFileSync(task!.outputFile, 'utf8')).toBe('start:before\nend\n');
    expect(await sh(bg, 'echo "$BG ${LEAK-unset}"')).toBe('before unset');
  });

  it('calls that run together see the state of their start; their changes apply in call order', async () => {
    const rt = await runtime();
    // All read-only, so the executor runs them at once. The first is the slowest and still running while the third
    // reads: the reader sees none of it, whatever the timing.
    const { results } = await rt.run([
      bash('export x=first p=1; sleep 0.5; export q=1'),
      bash('export x=second'),
      bash('sleep 0.2; echo "${p-unset} ${q-unset} ${x-unset}"'),
    ]);
    expect(text(results[2]!)).toBe('unset unset unset');
    // The first finished last, but call order decides: the second's x wins, the first's p and q are kept.
    expect(await sh(rt, 'echo "$x $p $q"')).toBe('second 1 1');
  });

  it('credentials: a scrubbed secret is never put back, by name or by value; the note names, never shows', async () => {
    const secret = 'sk-toolgate-test-0123456789abcdef';
    process.env.TOOLGATE_TEST_API_KEY = secret;
    try {
      const rt = await runtime();
      const first = await sh(rt, `export TOOLGATE_TEST_API_KEY='${secret}' INNOCENT='x${secret}y' GH_TOKEN=ghp_madeup_1234567890 FINE=ok`);
      expect(first).toMatch(/not kept for later commands: GH_TOKEN, INNOCENT, TOOLGATE_TEST_API_KEY — variables that look like credentials/);
      expect(first).not.toContain(secret);
      await sh(rt, 'env > env.txt');
      const env = readFileSync(path.join(dir, 'env.txt'), 'utf8');
      expect(env).toContain('FINE=ok');
      expect(env).not.toContain(secret);
      expect(env).not.toMatch(/^(INNOCENT|GH_TOKEN|TOOLGATE_TEST_API_KEY)=/m);
    } finally {
      delete process.env.TOOLGATE_TEST_API_KEY;
    }
  });

  it('bash.persistEnvironment: false — every command starts from the runtime environment', async () => {
    const rt = await runtime({ toolgate: { bash: { persistEnvironment: false } } });
    await sh(rt, 'export A=1; f() { :; }');
    expect(await sh(rt, 'echo "A=${A-unset}"; type -t f || echo nofn')).toBe('A=unset\nnofn');
    // The model is told which way it is.
    const description = async (r: ToolRuntime) => (await r.definitions()).find((d) => d.name === 'Bash')!.description ?? '';
    expect(await description(rt)).toContain('variables set with `export` or `source` do NOT persist');
    expect(await description(await runtime())).toContain('what a command leaves behind is where the next call starts');
  });

  it('belongs to its runtime and agent: two runtimes do not share it; a sub-agent starts from it and keeps its changes', async () => {
    const one = await runtime();
    const other = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.other'), mode: 'bypassPermissions', settings: { sources: [] } });
    runtimes.push(other);
    await sh(one, 'export WHO=one');
    expect(await sh(other, 'echo "${WHO-unset}"')).toBe('unset');
    const child = await one.child();
    expect(await sh(child, 'echo "$WHO"; export WHO=child')).toBe('one');
    expect(await sh(child, 'echo "$WHO"')).toBe('child');
    expect(await sh(one, 'echo "$WHO"')).toBe('one');
  });
});

describe('sub-agents through the loop', () => {
  it('an Agent call starts from what a Bash call of the same turn left; what the sub-agent exports stays its own', async () => {
    const script: Record<string, readonly ScriptedResponse[]> = {
      'set up': [
        {
          content: [
            { type: 'tool_use', name: 'Bash', input: { command: 'export SAME_TURN=yes' } },
            { type: 'tool_use', name: 'Agent', input: { description: 'look', prompt: 'CHILD: report the variable' } },
          ],
        },
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo "${CHILD_ONLY-unset}" > parent.txt' } }] },
        { content: [{ type: 'text', text: 'done' }] },
      ],
      CHILD: [
        { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo "$SAME_TURN" > child.txt; export CHILD_ONLY=1' } }] },
        { content: [{ type: 'text', text: 'reported' }] },
      ],
    };
    const first = (r: RecordedRequest) => JSON.stringify(r.body.messages[0].content);
    const turn = (r: RecordedRequest): ScriptedResponse => {
      const key = Object.keys(script).find((k) => first(r).includes(k))!;
      return script[key]![r.body.messages.filter((m: { role: string }) => m.role === 'assistant').length]!;
    };
    const server = await startScriptedServer(Array.from({ length: 5 }, () => turn));
    try {
      const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
      const rt = await runtime({}, { client });
      for await (const event of query({ runtime: rt, client, prompt: 'set up the environment' })) {
        if (event.type === 'result') expect(event.result.text).toBe('done');
      }
      expect(readFileSync(path.join(dir, 'child.txt'), 'utf8')).toBe('yes\n');
      expect(readFileSync(path.join(dir, 'parent.txt'), 'utf8')).toBe('unset\n');
    } finally {
      await server.close();
    }
  });
});

const availability = await detectSandbox();
// Written reason for skipping: these run commands inside bubblewrap, which needs bwrap, socat and a kernel that lets
// bwrap create namespaces; where that is missing the sandbox's own tests say why, and this block cannot run.
describe.skipIf(!availability.available)('inside the sandbox', () => {
  it('persists across sandboxed commands; /proc/self/environ shows nothing scrubbed; nothing reaches an unsandboxed command', async () => {
    const secret = 'sandbox-secret-0123456789abcdef';
    process.env.TOOLGATE_TEST_SECRET = secret;
    try {
      const rt = await runtime({ sandbox: { enabled: true } }, { onPermissionRequest: async () => ({ behavior: 'allow' }), mode: 'default' });
      await sh(rt, `export SBX=kept; greet() { echo "hi $1"; }; export SNEAKY='${secret}'`);
      expect(await sh(rt, 'echo "$SBX"; greet sandbox; cat /proc/self/environ | tr "\\0" "\\n" > environ.txt')).toBe('kept\nhi sandbox');
      const environ = readFileSync(path.join(dir, 'environ.txt'), 'utf8');
      expect(environ).toMatch(/^SBX=kept$/m);
      expect(environ).not.toContain(secret);
      expect(environ).not.toMatch(/^TOOLGATE_TEST_SECRET=/m);
      const outside = await sh(rt, 'echo "${SBX-unset}"; type -t greet || echo nofn', { dangerouslyDisableSandbox: true });
      expect(outside).toMatch(/^unset\nnofn\n/);
      expect(outside).toContain('that sandboxed commands left were not applied');
    } finally {
      delete process.env.TOOLGATE_TEST_SECRET;
    }
  });
});
