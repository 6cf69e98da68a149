/**
 * One scripted turn on the wire: the SSE events of a streamed response, or the message of a non-streamed one.
 */
import type { ServerResponse } from 'node:http';
import type { Chunking, ScriptedBlock, ScriptedError, ScriptedResponse } from './script.js';

/** An SSE event as written: `type` is the `event:` line, `data` the JSON payload. */
export interface WireEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  /** `performance.now()` right after the write. */
  readonly at: number;
}

interface Ids {
  readonly message: string;
  readonly toolPrefix: string;
}

type ContentBlock = Exclude<ScriptedBlock, { type: 'pause' } | { type: 'wait' } | { type: 'disconnect' }>;

const DEFAULT_CHUNKS = 3;

/** Streams `response`; when `failure` says so, cuts the connection or sends an error event after some blocks. */
export async function streamTurn(
  res: ServerResponse,
  response: ScriptedResponse,
  request: any,
  ids: Ids,
  failure: ScriptedError | undefined,
  onEvent: (event: WireEvent) => void,
): Promise<void> {
  const delay = response.chunkDelayMs ?? 0;
  const send = async (type: string, data: Record<string, unknown>, pause = true): Promise<boolean> => {
    if (res.destroyed || res.writableEnded) return false;
    res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    onEvent({ type, data, at: performance.now() });
    if (pause && delay > 0) await sleep(delay);
    return !res.destroyed;
  };
  const blocks = response.content ?? [];
  const usage = usageOf(response, request);
  const failAfter = failure && !('status' in failure) ? (failure.afterBlocks ?? 0) : undefined;
  const message = {
    id: ids.message,
    type: 'message',
    role: 'assistant',
    model: response.model ?? request.model ?? 'claude-scripted',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 1 },
  };
  if (!(await send('message_start', { type: 'message_start', message }))) return;
  let index = 0;
  let toolCount = 0;
  for (const block of blocks) {
    if (failAfter !== undefined && index >= failAfter) break;
    if (block.type === 'pause') {
      await sleep(block.ms);
      continue;
    }
    if (block.type === 'disconnect') {
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.destroy();
      return;
    }
    if (block.type === 'wait') {
      await waitUntil(block.until, block.pollMs ?? 5, block.timeoutMs ?? 10_000, res);
      continue;
    }
    const id = block.type === 'tool_use' ? (block.id ?? `${ids.toolPrefix}${toolCount}`) : undefined;
    if (block.type === 'tool_use') toolCount++;
    if (!(await sendBlock(send, index, block, id))) return;
    index++;
  }
  if (failure && failAfter !== undefined) {
    if ('drop' in failure) {
      // Let what was written reach the client first: a drop cuts the stream after those blocks, not before them.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.destroy();
      return;
    }
    if ('streamError' in failure) {
      await send('error', { type: 'error', error: { type: failure.streamError, message: failure.message ?? 'Overloaded' } }, false);
      res.end();
      return;
    }
  }
  const stopReason = response.stopReason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  await send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: response.stopSequence ?? null },
    usage: { output_tokens: usage.output_tokens },
  });
  await send('message_stop', { type: 'message_stop' }, false);
  res.end();
}

async function sendBlock(
  send: (type: string, data: Record<string, unknown>) => Promise<boolean>,
  index: number,
  block: ContentBlock,
  id: string | undefined,
): Promise<boolean> {
  const delta = (d: Record<string, unknown>) => send('content_block_delta', { type: 'content_block_delta', index, delta: d });
  const start = (b: Record<string, unknown>) => send('content_block_start', { type: 'content_block_start', index, content_block: b });
  switch (block.type) {
    case 'text':
      if (!(await start({ type: 'text', text: '' }))) return false;
      for (const chunk of chunk_(block.text, block.chunks)) if (!(await delta({ type: 'text_delta', text: chunk }))) return false;
      break;
    case 'thinking':
      if (!(await start({ type: 'thinking', thinking: '', signature: '' }))) return false;
      for (const chunk of chunk_(block.thinking, block.chunks)) if (!(await delta({ type: 'thinking_delta', thinking: chunk }))) return false;
      if (!(await delta({ type: 'signature_delta', signature: block.signature ?? 'scripted-signature' }))) return false;
      break;
    case 'redacted_thinking':
      if (!(await start({ type: 'redacted_thinking', data: block.data }))) return false;
      break;
    case 'tool_use': {
      if (!(await start({ type: 'tool_use', id, name: block.name, input: {} }))) return false;
      const json = block.rawInput ?? JSON.stringify(block.input ?? {});
      for (const chunk of chunk_(json, block.chunks)) if (!(await delta({ type: 'input_json_delta', partial_json: chunk }))) return false;
      break;
    }
  }
  return send('content_block_stop', { type: 'content_block_stop', index });
}

/** The whole message of a non-streamed turn (deliberately invalid tool input cannot be expressed: sent as `{}`). */
export function buildMessage(response: ScriptedResponse, request: any, ids: Ids): Record<string, unknown> {
  let toolCount = 0;
  const content: Record<string, unknown>[] = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? 'scripted-signature' });
    else if (block.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use') {
      let input: unknown = block.input ?? {};
      if (block.rawInput !== undefined) {
        try {
          input = JSON.parse(block.rawInput);
        } catch {
          input = {};
        }
      }
      content.push({ type: 'tool_use', id: block.id ?? `${ids.toolPrefix}${toolCount}`, name: block.name, input });
      toolCount++;
    }
  }
  return {
    id: ids.message,
    type: 'message',
    role: 'assistant',
    model: response.model ?? request.model ?? 'claude-scripted',
    content,
    stop_reason: response.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: response.stopSequence ?? null,
    usage: usageOf(response, request),
  };
}

function usageOf(response: ScriptedResponse, request: any) {
  const out = (response.content ?? []).reduce((n, b) => n + textOf(b).length, 0);
  return {
    input_tokens: response.usage?.input_tokens ?? Math.max(1, Math.ceil(JSON.stringify(request?.messages ?? '').length / 4)),
    output_tokens: response.usage?.output_tokens ?? Math.max(1, Math.ceil(out / 4)),
    cache_creation_input_tokens: response.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: response.usage?.cache_read_input_tokens ?? 0,
  };
}

function textOf(block: ScriptedBlock): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'thinking') return block.thinking;
  if (block.type === 'tool_use') return block.rawInput ?? JSON.stringify(block.input ?? {});
  return '';
}

/** Splits into `chunking` pieces (or uses the given pieces), never inside a surrogate pair. */
function chunk_(text: string, chunking: Chunking | undefined): readonly string[] {
  if (Array.isArray(chunking)) return chunking as readonly string[];
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(chars.length, typeof chunking === 'number' ? chunking : DEFAULT_CHUNKS));
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

async function waitUntil(until: () => unknown, pollMs: number, timeoutMs: number, res: ServerResponse): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !res.destroyed) {
    if (await until()) return;
    await sleep(pollMs);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
