/** A `toolgate/agent-sdk` session against `toolgate/testing`'s server, in temp folders, for the face's tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, type Options, type Query, type SDKMessage, type SDKUserMessage } from '../../src/agent-sdk/index.js';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse, type ScriptedServer } from '../../src/testing/index.js';

export type Turn = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>);

export interface Harness {
  readonly dir: string;
  readonly home: string;
  readonly server: ScriptedServer;
  readonly env: Record<string, string>;
  /** Starts a session; `options` are merged over cwd, env, model and `settingSources: []`. */
  start(prompt: string | AsyncIterable<SDKUserMessage>, options?: Options): Query;
  /** Runs one to its end: the messages, and the error its stream ended with, if any. */
  run(prompt: string | AsyncIterable<SDKUserMessage>, options?: Options): Promise<{ messages: SDKMessage[]; error?: unknown }>;
  close(): Promise<void>;
}

export async function harness(turns: readonly Turn[]): Promise<Harness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-test-'));
  const home = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-home-'));
  const server = await startScriptedServer(turns as never);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key' };
  const start = (prompt: string | AsyncIterable<SDKUserMessage>, options: Options = {}) =>
    query({ prompt, options: { cwd: dir, model: 'claude-sonnet-4-6', settingSources: [], ...options, env: { ...env, ...(options.env ?? {}) } } });
  return {
    dir,
    home,
    server,
    env,
    start,
    async run(prompt, options) {
      const messages: SDKMessage[] = [];
      try {
        for await (const m of start(prompt, options)) messages.push(m);
        return { messages };
      } catch (error) {
        return { messages, error };
      }
    },
    async close() {
      await server.close();
      for (const d of [dir, home]) rmSync(d, { recursive: true, force: true });
    },
  };
}

export const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
export const call = (name: string, input: Record<string, unknown>): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });

/** A stream of user messages the test feeds by hand. */
export function inputStream(): { stream: AsyncIterable<SDKUserMessage>; send(text: string): void; end(): void } {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    stream: (async function* () {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
      }
    })(),
    send(t) {
      queue.push({ type: 'user', message: { role: 'user', content: t }, parent_tool_use_id: null });
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

export function resultOf(messages: readonly SDKMessage[]): Extract<SDKMessage, { type: 'result' }> {
  const r = messages.filter((m) => m.type === 'result').at(-1);
  if (!r) throw new Error(`no result among ${messages.map((m) => m.type).join(', ')}`);
  return r as Extract<SDKMessage, { type: 'result' }>;
}

/** The text of every tool_result the session's user messages carry, in order. */
export function toolResults(messages: readonly SDKMessage[]): string[] {
  return messages.flatMap((m) =>
    m.type === 'user' && m.parent_tool_use_id === null && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b) => (b.type === 'tool_result' ? [typeof b.content === 'string' ? b.content : JSON.stringify(b.content)] : []))
      : [],
  );
}
