import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../session/index.js';
import { toolResultText } from '../tool/tool-result.js';
import { TerminalSession } from './session.js';
import type { ToolItem } from './session-snapshot.js';
import { SessionStore } from './session-store.js';
import { fakeLoop } from './test-helpers/fake-loop.js';

let dir: string;
let core: Session | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
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
  it('ends a ScheduleWakeup wait at once (the session wakes the runtime)', async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-wake-')));
    const turns = [{ tools: [{ name: 'ScheduleWakeup', input: { delaySeconds: 600, reason: 'nothing to do yet' } }] }, { text: 'ok' }];
    // As the terminal starts it (start-session.tsx): its built-ins whole from the start.
    core = new Session({ cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: 'sk-test' }, settingSources: [], eagerTools: true, loop: fakeLoop(turns) });
    await core.start();
    const store = new SessionStore('default', 'test-model');
    const session = new TerminalSession({ session: core, store });
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
