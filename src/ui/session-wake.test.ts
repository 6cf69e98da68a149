import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../agent/create-tool-runtime.js';
import type { ToolRuntime } from '../agent/types.js';
import { toolResultText } from '../tool/tool-result.js';
import { Session } from './session.js';
import type { ToolItem } from './session-snapshot.js';
import { SessionStore } from './session-store.js';
import { fakeLoop } from './test-helpers/fake-loop.js';

let dir: string;
let runtime: ToolRuntime | undefined;
afterEach(async () => {
  await runtime?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a message typed while the model waits', () => {
  it('ends a ScheduleWakeup wait at once (the session pokes the notification queue)', async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-wake-')));
    runtime = await createToolRuntime({ cwd: dir, settings: { sources: [] } });
    const store = new SessionStore('default', 'test-model');
    const turns = [{ tools: [{ name: 'ScheduleWakeup', input: { delaySeconds: 600, reason: 'nothing to do yet' } }] }, { text: 'ok' }];
    const session = new Session({ runtime, store, runQuery: fakeLoop(runtime, turns), model: 'test-model' });
    session.submit('wait for the build');
    const waiting = () => [...store.getSnapshot().live].some((i) => i.kind === 'tool' && i.outcome === undefined);
    await until(waiting, 'the wait to start');
    session.submit('the build is done, look now');
    const wake = () => [...store.getSnapshot().finished, ...store.getSnapshot().live].find((i): i is ToolItem => i.kind === 'tool' && i.outcome !== undefined);
    await until(() => wake() !== undefined, 'the wait to end');
    expect(toolResultText(wake()!.outcome!.result)).toContain('the user sent a message');
    await session.idle();
  });
});
