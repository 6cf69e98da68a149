import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksFor, makeHookFixture, type HookFixture } from './test-helpers/hook-fixture.js';
import type { HookCallback } from './types.js';

let fx: HookFixture;
const signal = () => new AbortController().signal;

beforeEach(async () => {
  fx = await makeHookFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('callback hooks', () => {
  it('get the same JSON a shell hook reads on stdin and answer with the same shape', async () => {
    const s = await fx.script('record.sh', `cat > "${fx.dir}/stdin.json"`);
    let seen: Record<string, unknown> | undefined;
    const cb: HookCallback = {
      event: 'PreToolUse',
      matcher: 'Bash',
      name: 'no-curl',
      async callback(input) {
        seen = input;
        return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'curl is blocked' } };
      },
    };
    const out = await fx.runner(hooksFor('PreToolUse', 'Bash', { command: s }), { callbacks: [cb] }).preToolUse(fx.event(), signal());
    expect(out.decision).toEqual({ behavior: 'deny', reason: 'curl is blocked', source: 'no-curl' });
    expect(seen).toEqual(JSON.parse(await fx.read('stdin.json')));
  });

  it('a callback returning nothing does nothing; a throw is non-blocking unless failClosed', async () => {
    const quiet: HookCallback = { event: 'PreToolUse', callback: async () => undefined };
    const thrower: HookCallback = { event: 'PreToolUse', name: 'thrower', callback: async () => { throw new Error('db down'); } };
    const r1 = await fx.runner({}, { callbacks: [quiet, thrower] }).preToolUse(fx.event(), signal());
    expect(r1.decision).toBeUndefined();
    expect(r1.nonBlockingErrors).toEqual(['thrower: failed to run: callback threw: db down']);
    const r2 = await fx.runner({}, { callbacks: [{ ...thrower, failClosed: true }] }).preToolUse(fx.event(), signal());
    expect(r2.decision).toMatchObject({ behavior: 'deny', source: 'thrower' });
    expect(r2.decision?.reason).toContain('db down');
  });

  it('a callback that times out on PreToolUse blocks the call and sees its signal abort', async () => {
    let aborted = false;
    const slow: HookCallback = {
      event: 'PreToolUse',
      name: 'slow',
      timeoutMs: 50,
      callback: (_input, sig) =>
        new Promise((resolve) => {
          sig.addEventListener('abort', () => {
            aborted = true;
            resolve(undefined);
          });
        }),
    };
    const out = await fx.runner({}, { callbacks: [slow] }).preToolUse(fx.event(), signal());
    expect(out.decision).toMatchObject({ behavior: 'deny', reason: 'Hook slow timed out after 50 ms' });
    expect(aborted).toBe(true);
    // On PostToolUse the same timeout is only reported.
    const post = await fx.runner({}, { callbacks: [{ ...slow, event: 'PostToolUse' }] }).postToolUse({ ...fx.event(), toolResponse: 1 }, signal());
    expect(post.block).toBeUndefined();
    expect(post.nonBlockingErrors[0]).toContain('timed out');
  });

  it('only callbacks whose event and matcher fit run; a mutated input does not leak back', async () => {
    const calls: string[] = [];
    const e = fx.event({ toolName: 'Write', toolInput: { file_path: '/a', content: 'x' } });
    const cbs: HookCallback[] = [
      { event: 'PreToolUse', matcher: 'Edit|Write', callback: async (i) => { calls.push('pre-write'); (i.tool_input as Record<string, unknown>).content = 'mutated'; } },
      { event: 'PreToolUse', matcher: 'Bash', callback: async () => { calls.push('pre-bash'); } },
      { event: 'PostToolUse', matcher: 'Write', callback: async () => { calls.push('post-write'); } },
    ];
    const runner = fx.runner({}, { callbacks: cbs });
    expect(runner.hasHooks('PreToolUse', 'Write')).toBe(true);
    expect(runner.hasHooks('PostToolUse', 'Bash')).toBe(false);
    await runner.preToolUse(e, signal());
    expect(calls).toEqual(['pre-write']);
    expect(e.toolInput.content).toBe('x');
  });
});

describe('http hooks', () => {
  let server: Server;
  let url: string;
  let respond: (req: IncomingMessage, body: string) => { status: number; body: string };
  const bodies: unknown[] = [];

  beforeEach(async () => {
    bodies.length = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push({ json: JSON.parse(body), auth: req.headers.authorization });
        const r = respond(req, body);
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
  });

  it('POSTs the input JSON and reads a JSON answer; only allowed env vars expand in headers', async () => {
    respond = () => ({ status: 200, body: '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"remote policy"}}' });
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url, headers: { Authorization: 'Bearer $TOKEN:${SECRET}:end' }, allowedEnvVars: ['TOKEN'] }] }] };
    const out = await fx.runner(hooks, { env: { TOKEN: 't0k', SECRET: 's3cret' } }).preToolUse(fx.event(), signal());
    expect(out.decision).toMatchObject({ behavior: 'deny', reason: 'remote policy' });
    expect(bodies[0]).toMatchObject({ json: { hook_event_name: 'PreToolUse', tool_name: 'Bash' }, auth: 'Bearer t0k::end' });
  });

  it('an HTTP status alone cannot block: non-2xx is a non-blocking error; empty 2xx is success', async () => {
    const hooks = { PreToolUse: [{ hooks: [{ type: 'http', url }] }] };
    respond = () => ({ status: 500, body: 'boom' });
    const r1 = await fx.runner(hooks).preToolUse(fx.event(), signal());
    expect(r1.decision).toBeUndefined();
    expect(r1.nonBlockingErrors[0]).toContain('HTTP 500');
    respond = () => ({ status: 204, body: '' });
    const r2 = await fx.runner(hooks).preToolUse(fx.event(), signal());
    expect(r2).toEqual({ additionalContext: [], systemMessages: [], nonBlockingErrors: [] });
  });
});
