/**
 * A stand-in for the agent loop in the UI's component tests: each scripted turn streams its text, hands its tool_use
 * blocks to the real runtime (real tools, real permission engine, real prompts through the store) and reports what
 * the runtime reports. The pty tests use the real loop against the scripted Messages API server.
 */
import type { QueryEvent, ToolRuntime } from '../../agent/types.js';
import type { MessageParam, ToolUseBlock } from '../../tool/tool.js';
import type { RunQuery } from '../session.js';

export interface FakeTurn {
  readonly text?: string;
  readonly tools?: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
}

let ids = 0;

export function fakeLoop(runtime: ToolRuntime, turns: FakeTurn[]): RunQuery {
  return async function* ({ prompt, signal }): AsyncGenerator<QueryEvent> {
    const turn = turns.shift() ?? { text: '(no more turns)' };
    const messages: MessageParam[] = [...prompt];
    if (turn.text) for (const piece of turn.text.match(/.{1,8}/gs) ?? []) yield { type: 'text_delta', text: piece };
    const blocks: ToolUseBlock[] = (turn.tools ?? []).map((t) => ({ type: 'tool_use', id: `toolu_fake_${++ids}`, name: t.name, input: t.input }) as ToolUseBlock);
    const assistant = { role: 'assistant' as const, content: [...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []), ...blocks] };
    messages.push(assistant);
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
        text: turn.text ?? '',
        messages,
      },
    };
  };
}
