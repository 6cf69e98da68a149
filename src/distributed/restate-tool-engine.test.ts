/**
 * The coordinator's side of Restate against a stand-in ingress (a real HTTP server on 127.0.0.1 that answers as
 * Restate's does): what a call sends, how answers and failures come back, that calls share kept-alive connections,
 * and that an abort cancels the invocation through the admin API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteToolCall } from './remote-tool-call.js';
import { createRestateToolEngine } from './restate-tool-engine.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly key: string | undefined;
  readonly body: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function fakeRestate(answer: (seen: Seen, res: http.ServerResponse) => void): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined, body };
      seen.push(s);
      answer(s, res);
    });
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, connections: () => connections };
}

const call = (toolUseId: string): RemoteToolCall => ({
  sessionId: 's',
  toolUseId,
  tool: 'Read',
  input: { file_path: '/w/a' },
  cwd: '/w',
  permissionContext: { mode: 'default', additionalWorkingDirectories: [] } as unknown as RemoteToolCall['permissionContext'],
  settings: {},
  retrySafe: true,
});

const json = (res: http.ServerResponse, status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

describe('the Restate engine (coordinator side)', () => {
  it('posts the call under its idempotency key and returns the worker’s answer; calls share one kept-alive connection', async () => {
    const restate = await fakeRestate((s, res) => json(res, 200, { ok: true, data: JSON.parse(s.body).toolUseId }));
    const engine = createRestateToolEngine({ ingressUrl: restate.url, adminUrl: restate.url });
    for (let i = 0; i < 20; i++) {
      const result = await engine.submit(call(`toolu_${i}`), { idempotencyKey: `s/toolu_${i}`, signal: new AbortController().signal });
      expect(result).toEqual({ ok: true, data: `toolu_${i}` });
    }
    expect(restate.seen.map((s) => `${s.method} ${s.url} ${s.key}`).slice(0, 2)).toEqual(['POST /ToolgateTools/call s/toolu_0', 'POST /ToolgateTools/call s/toolu_1']);
    expect(JSON.parse(restate.seen[0]!.body).retrySafe).toBe(true);
    expect(restate.connections()).toBe(1);
    await engine.close?.();
  });

  it('answers a refusal by Restate (4xx) as a failed call, and retries what the ingress could not take (503)', async () => {
    let unavailable = 1;
    const restate = await fakeRestate((s, res) => {
      if (s.url.includes('Nope')) return json(res, 404, { message: 'service not found' });
      if (unavailable-- > 0) return json(res, 503, { message: 'busy' });
      json(res, 200, { ok: true, data: 'late' });
    });
    const missing = createRestateToolEngine({ ingressUrl: restate.url, pool: 'Nope' });
    expect(await missing.submit(call('toolu_a'), { idempotencyKey: 's/a', signal: new AbortController().signal })).toMatchObject({
      ok: false,
      error: { message: 'Restate could not run this call (404): service not found', name: 'RestateError' },
    });
    const engine = createRestateToolEngine({ ingressUrl: restate.url });
    expect(await engine.submit(call('toolu_b'), { idempotencyKey: 's/b', signal: new AbortController().signal })).toEqual({ ok: true, data: 'late' });
    expect(restate.seen.filter((s) => s.key === 's/b')).toHaveLength(2);
    await missing.close?.();
    await engine.close?.();
  });

  it('an ingress that cannot be reached: a few attempts, then an error that says the call may or may not have started', async () => {
    const restate = await fakeRestate(() => undefined);
    const url = restate.url;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const engine = createRestateToolEngine({ ingressUrl: url, attempts: 2 });
    await expect(engine.submit(call('toolu_d'), { idempotencyKey: 's/d', signal: new AbortController().signal })).rejects.toThrow(
      `The Restate ingress at ${url} could not be reached (connect ECONNREFUSED ${url.slice('http://'.length)}). The call may or may not have started; submitting the same tool_use again returns its result if it did.`,
    );
    await engine.close?.();
  });

  it('an abort rejects the call at once and cancels the invocation through the admin API', async () => {
    let cancelled: () => void;
    const cancelSeen = new Promise<void>((resolve) => (cancelled = resolve));
    const restate = await fakeRestate((s, res) => {
      if (s.url.endsWith('/call')) return; // the call hangs, as a long tool call does
      if (s.url.endsWith('/call/send')) return json(res, 200, { invocationId: 'inv_1', status: 'PreviouslyAccepted' });
      res.writeHead(202).end();
      cancelled();
    });
    const engine = createRestateToolEngine({ ingressUrl: restate.url, adminUrl: restate.url });
    const abort = new AbortController();
    const pending = engine.submit(call('toolu_c'), { idempotencyKey: 's/c', signal: abort.signal });
    while (!restate.seen.some((s) => s.url.endsWith('/call'))) await new Promise((r) => setTimeout(r, 10));
    abort.abort('user');
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await cancelSeen;
    const seen = restate.seen.map((s) => `${s.method} ${s.url}`);
    expect(seen[0]).toBe('POST /ToolgateTools/call');
    expect(seen.filter((s) => s !== 'POST /ToolgateTools/call')).toEqual(['POST /ToolgateTools/call/send', 'PATCH /invocations/inv_1/cancel']);
    // A user's interrupt looks once more under the call's key for the tool's own answer (its output so far).
    expect(seen.filter((s) => s === 'POST /ToolgateTools/call').length).toBeLessThanOrEqual(2);
    expect(restate.seen[1]!.key).toBe('s/c');
    await engine.close?.();
  });
});
