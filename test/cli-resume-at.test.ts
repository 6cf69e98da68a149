/**
 * `toolgate -p --resume ID --resume-session-at MSG` (issue 35): the real CLI process resumes a conversation cut after a
 * message (its transcript id, as getSessionMessages gives it), under a new session id; the transcript it was cut from
 * stays whole. Without --resume it is a flag error.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSessionMessages } from '../src/agent-sdk/index.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { toolgate } from './helpers/cli.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-resume-at-'));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ...(server ? { ANTHROPIC_BASE_URL: server.url } : {}) });
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const result = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as { session_id: string; result: string };

describe('--resume-session-at', { timeout: 120_000 }, () => {
  it('goes on from the conversation up to a message, under a new id', async () => {
    server = await startScriptedServer([text('one'), text('two'), text('three')]);
    const first = result((await toolgate(['-p', 'first', '--cwd', work, '--output-format', 'json'], { env: env() })).stdout);
    const again = await toolgate(['-p', 'second', '--cwd', work, '--resume', first.session_id, '--output-format', 'json'], { env: env() });
    expect(result(again.stdout).result).toBe('two');
    const stored = await getSessionMessages(first.session_id, { env: env() });
    expect(stored).toHaveLength(4);
    const cut = await toolgate(['-p', 'third', '--cwd', work, '--resume', first.session_id, '--resume-session-at', stored[1]!.uuid, '--output-format', 'json'], { env: env() });
    expect(cut.code).toBe(0);
    expect(result(cut.stdout).session_id).not.toBe(first.session_id);
    // The request holds the first exchange and the new message only.
    expect(server.messageRequests[2]!.body.messages).toHaveLength(3);
    expect(JSON.stringify(server.messageRequests[2]!.body.messages)).not.toContain('second');
    expect(await getSessionMessages(first.session_id, { env: env() })).toHaveLength(4);

    const bad = await toolgate(['-p', 'x', '--cwd', work, '--resume-session-at', stored[1]!.uuid], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--resume-session-at needs --resume ID/);
  });
});
