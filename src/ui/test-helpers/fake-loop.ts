/**
 * A stand-in for the agent loop in the UI's component tests (a session's `loop`): each user message is a scripted
 * turn that streams its text, hands its tool_use blocks to the real runtime (real tools, real permission engine, real
 * prompts through the store) and reports what the runtime reports. The pty tests use the real loop against the
 * scripted Messages API server.
 */
import type { QueryEvent } from '../../agent/types.js';
import type { QueryOptions } from '../../agent/query-options.js';
import type { SessionLoop } from '../../session/index.js';
import type { MessageParam, ToolUseBlock } from '../../tool/tool.js';

export interface FakeTurn {
  readonly text?: string;
  readonly tools?: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
}

let ids = 0;

export function fakeLoop(turns: FakeTurn[]): SessionLoop {
  return async function* (options: QueryOptions): AsyncGenerator<QueryEvent> {
    const { runtime } = options;
    const messages: MessageParam[] = typeof options.prompt === 'string' ? [{ role: 'user', content: options.prompt }] : [...options.prompt];
    yield { type: 'init', sessionId: runtime.sessionId, model: 'test-model', tools: runtime.tools.map((t) => t.name), cwd: runtime.cwd, slashCommands: [], skills: [] };
    const input = options.input?.[Symbol.asyncIterator]();
    for (;;) {
      const signal = options.live?.turnSignal?.() ?? new AbortController().signal;
      yield* turn(turns.shift() ?? { text: '(no more turns)' }, messages, options, signal);
      const next = await input?.next();
      if (!next || next.done) return;
      messages.push(next.value);
    }
  };
}

async function* turn(script: FakeTurn, messages: MessageParam[], options: QueryOptions, signal: AbortSignal): AsyncGenerator<QueryEvent> {
  const { runtime } = options;
  if (script.text) for (const piece of script.text.match(/.{1,8}/gs) ?? []) yield { type: 'text_delta', text: piece };
  const blocks: ToolUseBlock[] = (script.tools ?? []).map((t) => ({ type: 'tool_use', id: `toolu_fake_${++ids}`, name: t.name, input: t.input }) as ToolUseBlock);
  messages.push({ role: 'assistant' as const, content: [...(script.text ? [{ type: 'text' as const, text: script.text }] : []), ...blocks] });
  for (const block of blocks) yield { type: 'tool_use', block };
  if (blocks.length > 0) {
    for await (const event of runtime.stream(blocks, { signal })) {
      if (event.type === 'progress') yield { type: 'tool_progress', progress: event.progress };
      else if (event.type === 'result') yield { type: 'tool_result', outcome: event.outcome };
      else messages.push(event.result.message);
    }
  }
  yield {
    type: 'result',
    result: {
      sessionId: runtime.sessionId,
      stopReason: signal.aborted ? 'aborted' : 'end_turn',
      isError: false,
      turns: 1,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      costUsd: 0,
      durationMs: 0,
      text: script.text ?? '',
      messages: [...messages],
    },
  };
}
