/**
 * The Restate server of tests and benchmarks starts on ports that were free a moment ago; one taken meanwhile (by
 * another process's connection, or a test beside it) makes the server exit at start-up, and it starts again on fresh
 * ports instead of failing the caller.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startRestateServer, type RestateServer } from './restate-server.js';

let busy: net.Server | undefined;
let server: RestateServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
  busy = undefined;
});

describe('startRestateServer', () => {
  it('starts again on fresh ports when a port it picked is taken before the server binds it', async () => {
    // Connections to it (the start-up's health probe) are closed at once, so that closing it waits for nothing.
    busy = net.createServer((socket) => socket.destroy());
    const taken = await new Promise<number>((resolve) => busy!.listen(0, '127.0.0.1', () => resolve((busy!.address() as net.AddressInfo).port)));
    let picks = 0;
    // The first pick is the taken port, as when another process grabs it between freePort() and the bind.
    server = await startRestateServer({ pickPort: () => (picks++ === 0 ? Promise.resolve(taken) : freePort()) });
    expect(server.ports.ingress).not.toBe(taken);
    expect(picks).toBe(6);
    const health = await fetch(`${server.adminUrl}/health`);
    expect(health.ok).toBe(true);
  }, 120_000);
});
