/**
 * `options.sessionStore` / `sessionStoreFlush` (every transcript entry mirrored; the state folder stays the transcript
 * a resume reads) and `resumeSessionAt` named by the uuid of a message the program was handed (issue 34).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SDKMessage, SessionKey, SessionStore, SessionStoreEntry } from 'toolgate/agent-sdk';
import { projectKeyOf } from '../src/agent-sdk/session-store.js';
import { call, harness, inputStream, resultOf, text, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A store that keeps each append call. */
function memoryStore(fail = 0): SessionStore & { calls: { key: SessionKey; entries: SessionStoreEntry[] }[]; tries: number } {
  const calls: { key: SessionKey; entries: SessionStoreEntry[] }[] = [];
  const store = {
    calls,
    tries: 0,
    async append(key: SessionKey, entries: SessionStoreEntry[]) {
      store.tries++;
      if (store.tries <= fail) throw new Error('store is down');
      calls.push({ key, entries: JSON.parse(JSON.stringify(entries)) as SessionStoreEntry[] });
    },
    async load() {
      return null;
    },
  };
  return store;
}

/** The local transcript's entries (the one session folder under the state folder). */
function localEntries(home: string): Record<string, unknown>[] {
  const sessions = path.join(home, '.local', 'state', 'toolgate', 'sessions');
  const [id] = readdirSync(sessions);
  return readFileSync(path.join(sessions, id!, 'transcript.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('sessionStore', () => {
  it("'batched': every entry of the transcript reaches the store before the result is yielded, keyed by project and session", async () => {
    h = await harness([call('Bash', { command: 'echo hi', description: 'say hi' }), text('done')]);
    const store = memoryStore();
    let atResult = 0;
    const messages: SDKMessage[] = [];
    for await (const m of h.start('go', { sessionStore: store, allowedTools: ['Bash(echo:*)'] })) {
      messages.push(m);
      if (m.type === 'result') atResult = store.calls.flatMap((c) => c.entries).length;
    }
    const sessionId = resultOf(messages).session_id;
    const mirrored = store.calls.flatMap((c) => c.entries);
    const local = localEntries(h.home);
    expect(mirrored.map((e) => e.type)).toEqual(local.map((e) => e.type));
    expect(mirrored.map((e) => e.message ?? null)).toEqual(local.map((e) => e.message ?? null));
    expect(atResult).toBe(local.length);
    expect(store.calls.every((c) => c.key.sessionId === sessionId && c.key.projectKey === projectKeyOf(h!.dir))).toBe(true);
    // A message's uuid is the one its first part was yielded with.
    const assistant = messages.find((m) => m.type === 'assistant')!;
    expect(mirrored.some((e) => e.uuid === assistant.uuid)).toBe(true);
    expect(mirrored.every((e) => typeof e.timestamp === 'string')).toBe(true);
  });

  it("'eager' sends each entry on its own; a store that keeps failing is said on stderr and the session goes on", async () => {
    h = await harness([text('one'), text('two')]);
    const eager = memoryStore();
    await h.run('go', { sessionStore: eager, sessionStoreFlush: 'eager' });
    expect(eager.calls.length).toBeGreaterThan(2);
    expect(eager.calls.every((c) => c.entries.length === 1)).toBe(true);
    const down = memoryStore(100);
    let stderr = '';
    const { messages, error } = await h.run('go', { sessionStore: down, stderr: (d) => (stderr += d) });
    expect(error).toBeUndefined();
    expect((resultOf(messages) as { result?: string }).result).toBe('two');
    expect(down.tries).toBe(3);
    expect(stderr).toMatch(/sessionStore.append failed 3 times/);
  });

  it('is refused with persistSession: false, without append/load, or with an unknown flush mode', () => {
    h = undefined;
    const store = memoryStore();
    return harness([]).then((made) => {
      h = made;
      expect(() => made.start('x', { sessionStore: store, persistSession: false })).toThrow(/persistSession: false/);
      expect(() => made.start('x', { sessionStore: {} as never })).toThrow(/append\(key, entries\) and load\(key\)/);
      expect(() => made.start('x', { sessionStore: store, sessionStoreFlush: 'often' as never })).toThrow(/"batched" or "eager"/);
    });
  });
});

describe('resumeSessionAt with the uuid of a yielded message', () => {
  it('resumes after the assistant message or tool result the program was handed; an unknown uuid is an error', async () => {
    const seen = (req: { body: { messages: { content: unknown }[] } }) => text(`saw ${req.body.messages.length}, ${JSON.stringify(req.body.messages).includes('session ended before this call') ? 'its result repaired' : 'its result'}`);
    h = await harness([call('Bash', { command: 'echo one', description: 'one' }), text('first done'), text('second done'), seen, seen]);
    const input = inputStream();
    const messages: SDKMessage[] = [];
    const q = h.start(input.stream, { allowedTools: ['Bash(echo:*)'] });
    input.send('first');
    let results = 0;
    for await (const m of q) {
      messages.push(m);
      if (m.type !== 'result') continue;
      if (++results === 1) input.send('second');
      else input.end();
    }
    const id = resultOf(messages).session_id;
    const toolUse = messages.find((m) => m.type === 'assistant')!;
    const toolResult = messages.find((m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content[0]?.type === 'tool_result')!;
    // Cut after the tool_use: prompt, tool_use, then its result repaired with the new prompt (one user message).
    const atUse = await h.run('again', { resume: id, resumeSessionAt: toolUse.uuid });
    expect((resultOf(atUse.messages) as { result?: string }).result).toBe('saw 3, its result repaired');
    const atResult = await h.run('again', { resume: id, resumeSessionAt: toolResult.uuid });
    // prompt, tool_use, its real result with the new prompt.
    expect((resultOf(atResult.messages) as { result?: string }).result).toBe('saw 3, its result');
    const unknown = await h.run('again', { resume: id, resumeSessionAt: '00000000-0000-4000-8000-000000000000' });
    expect(String(unknown.error)).toMatch(/has no message 00000000/);
  });
});
