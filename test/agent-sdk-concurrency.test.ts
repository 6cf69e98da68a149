/**
 * Sessions of `toolgate/agent-sdk` share nothing mutable: 200 run at once in this process against one scripted
 * server, each with its own working directory and its own permission rules (half may write, half may not). Every
 * session reads its own file; once all have, each edits its own file (allowed: it read it) and its neighbour's (which
 * the neighbour read, not it: refused — read-file state is per session), and writes a file where its rules say. No
 * decision, file state, transcript or message may cross from one session to another.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { query, type SDKMessage } from 'toolgate/agent-sdk';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse } from 'toolgate/testing';

const SESSIONS = 200;
const root = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-concurrency-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dirOf = (i: number) => path.join(root, `s${i}`);
const fileOf = (i: number) => path.join(dirOf(i), 'own.txt');

function sessionOf(request: RecordedRequest): number {
  const first = JSON.stringify(request.body.messages[0]);
  return Number(/session (\d+)/.exec(first)![1]);
}

it(`${SESSIONS} concurrent sessions with their own cwd and rules: nothing crosses`, { timeout: 240_000 }, async () => {
  for (let i = 0; i < SESSIONS; i++) {
    mkdirSync(dirOf(i));
    writeFileSync(fileOf(i), `content of ${i}\n`);
  }
  let secondRequests = 0;
  let releaseEdits!: () => void;
  const allRead = new Promise<void>((resolve) => (releaseEdits = resolve));
  const model = async (request: RecordedRequest): Promise<ScriptedResponse> => {
    const i = sessionOf(request);
    const step = request.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
    if (step === 0) return { content: [{ type: 'tool_use', name: 'Read', input: { file_path: fileOf(i) } }] };
    if (step === 1) {
      // Every session has read its own file before any edits: a shared read state could not hide here.
      if (++secondRequests === SESSIONS) releaseEdits();
      await allRead;
      const neighbour = (i + 1) % SESSIONS;
      return {
        content: [
          { type: 'tool_use', name: 'Edit', input: { file_path: fileOf(i), old_string: `content of ${i}`, new_string: `edited by ${i}` } },
          { type: 'tool_use', name: 'Edit', input: { file_path: fileOf(neighbour), old_string: `content of ${neighbour}`, new_string: `edited by ${i}` } },
          { type: 'tool_use', name: 'Write', input: { file_path: path.join(dirOf(i), 'written.txt'), content: `written by ${i}` } },
        ],
      };
    }
    return { content: [{ type: 'text', text: `session ${i} done` }] };
  };
  const server = await startScriptedServer(Array.from({ length: SESSIONS * 3 }, () => model));
  const home = path.join(root, 'home');
  mkdirSync(home);
  try {
    const runs = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const neighbourDir = dirOf((i + 1) % SESSIONS);
        const mayWrite = i % 2 === 0;
        const messages: SDKMessage[] = [];
        for await (const m of query({
          prompt: `session ${i}`,
          options: {
            cwd: dirOf(i),
            model: 'claude-sonnet-4-6',
            settingSources: [],
            additionalDirectories: [neighbourDir],
            allowedTools: ['Read', 'Edit', 'Write'],
            // A deny rule beats the allow rule: in odd sessions only.
            ...(mayWrite ? {} : { disallowedTools: ['Write(./written.txt)'] }),
            env: { PATH: process.env.PATH!, HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: `sk-session-${i}` },
          },
        })) {
          messages.push(m);
        }
        return { i, mayWrite, messages };
      }),
    );
    const sessionIds = new Set<string>();
    for (const { i, mayWrite, messages } of runs) {
      const init = messages[0] as Extract<SDKMessage, { subtype: 'init' }>;
      expect(init.cwd).toBe(dirOf(i));
      sessionIds.add(init.session_id);
      expect(messages.every((m) => (m as { session_id?: string }).session_id === init.session_id)).toBe(true);
      const result = messages.at(-1) as Extract<SDKMessage, { type: 'result' }>;
      expect(result.subtype).toBe('success');
      expect((result as { result: string }).result).toBe(`session ${i} done`);
      // Its own edit ran (it read the file); the neighbour's was refused: this session never read that file.
      const results = messages.flatMap((m) => (m.type === 'user' && Array.isArray(m.message.content) ? m.message.content : [])) as { content: unknown; is_error?: boolean }[];
      const edits = results.slice(1, 3);
      expect(edits[0]!.is_error).not.toBe(true);
      expect(JSON.stringify(edits[1]!.content)).toContain('File has not been read yet');
      // The decision is its own rules': Write allowed for even sessions, refused (and listed) for odd ones.
      expect(existsSync(path.join(dirOf(i), 'written.txt'))).toBe(mayWrite);
      expect(result.permission_denials.map((d) => d.tool_name)).toEqual(mayWrite ? [] : ['Write']);
    }
    expect(sessionIds.size).toBe(SESSIONS);
    for (let i = 0; i < SESSIONS; i++) expect(readFileSync(fileOf(i), 'utf8')).toBe(`edited by ${i}\n`);
    // Each request carried its own session's key: no client or environment was shared.
    for (const request of server.messageRequests) expect(request.headers.authorization).toBe(`Bearer sk-session-${sessionOf(request)}`);
  } finally {
    await server.close();
  }
});
