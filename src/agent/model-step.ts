/**
 * The model step of one turn: one Messages API request, streamed, with retries. Each tool_use block is handed over
 * (`onToolUse`) at its `content_block_stop`, so a tool can start while the model is still writing the next block.
 *
 * A failure before any tool_use was handed over is retried from scratch (nothing ran; the retry replaces the whole
 * response). A failure after one was handed over is not retried: the tool may already be running, and a new response
 * could ask for it again and run it twice. The turn is kept as far as it got instead — the complete blocks, the
 * handed-over calls with their results — and the next request lets the model go on from there (`interrupted`).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { errorToolResult } from '../tool/tool-result.js';
import type { AssistantMessage, ToolResultBlockParam, ToolUseBlock } from '../tool/tool.js';
import { usageFrom, emptyUsage } from './pricing.js';
import { classifyApiError, DEFAULT_MAX_RETRIES, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import type { ApiFailure, QueryEvent, Usage } from './query-types.js';

/** One request's body; with `betas`, it goes through the SDK's beta endpoint, which sends them as `anthropic-beta`. */
export type ModelRequest = Omit<Anthropic.Messages.MessageCreateParamsStreaming, 'stream'> & { readonly betas?: readonly string[] };

export interface ModelStepOptions {
  readonly client: Anthropic;
  readonly request: ModelRequest;
  readonly signal?: AbortSignal;
  readonly retry?: RetryPolicy;
  /** A tool_use block whose input is a JSON object, as soon as its `content_block_stop` arrives (with the usage so far). */
  readonly onToolUse?: (block: ToolUseBlock, assistant: AssistantMessage, usage: Usage) => void;
  readonly emit?: (event: QueryEvent) => void;
  /** Emit each raw stream event (`stream_event`); off by default (a UI needs only the deltas). */
  readonly streamEvents?: boolean;
}

export interface ModelStepResult {
  /** The response's complete blocks (an incomplete tool_use is kept with `{}` input and answered in `rejected`). */
  readonly assistant: AssistantMessage;
  /** The API's stop reason; `null` when the stream did not get that far (abort, interruption, error). */
  readonly stopReason: string | null;
  readonly usage: Usage;
  /** Every tool_use block in `assistant`, in call order. */
  readonly toolUses: readonly ToolUseBlock[];
  /** Results for tool_use blocks that were never handed over: input that is not a JSON object, or cut off. */
  readonly rejected: ReadonlyMap<string, ToolResultBlockParam>;
  readonly handedOver: number;
  readonly aborted: boolean;
  /** The stream failed after tool calls were handed over; the turn ends here (why, one line). */
  readonly interrupted?: string;
  /** The request failed for good (not retryable, or out of attempts). */
  readonly error?: string;
  readonly attempts: number;
  /** Wall time of the step, retries included (the API's share of a session's duration). */
  readonly durationMs: number;
  /** The response's id and model as the API named them (absent when no response started). */
  readonly messageId?: string;
  readonly model?: string;
  /** The failure behind `error`, as the API reported it. */
  readonly failure?: ApiFailure;
}

interface OpenBlock {
  block: Record<string, unknown>;
  json: string;
  complete: boolean;
}

export async function modelStep(options: ModelStepOptions): Promise<ModelStepResult> {
  const { client, request, signal } = options;
  const started = performance.now();
  options.emit?.({ type: 'requesting', model: request.model, at: epochNow() });
  for (let attempt = 0; ; attempt++) {
    const state = newState();
    try {
      if (responseJustEnded.has(client)) await connectionReleased();
      state.timing.sentAt = epochNow();
      const { data: stream, request_id } = await openStream(client, request, signal);
      state.requestId = request_id ?? undefined;
      for await (const event of stream) handleEvent(event, state, options);
      responseEnded(client);
      return finish(state, attempt, started, {});
    } catch (error) {
      if (signal?.aborted) return finish(state, attempt, started, { aborted: true });
      const classified = classifyApiError(error);
      if (state.handedOver > 0) return finish(state, attempt, started, { interrupted: classified.description });
      const delayMs = retryDelayMs(classified, attempt, options.retry);
      if (delayMs === undefined) {
        const tries = attempt + 1;
        const why = classified.retryable ? ` (gave up after ${tries} attempt${tries === 1 ? '' : 's'})` : '';
        const failure: ApiFailure = { message: classified.message ?? classified.description, ...(classified.status !== undefined ? { status: classified.status } : {}), ...(classified.type !== undefined ? { type: classified.type } : {}) };
        return finish(state, attempt, started, { error: `Messages API request failed: ${classified.description}${why}`, failure });
      }
      options.emit?.({
        type: 'retry',
        attempt: attempt + 1,
        delayMs,
        error: classified.description,
        ...(classified.status !== undefined ? { status: classified.status } : {}),
        ...(classified.type !== undefined ? { errorType: classified.type } : {}),
        maxRetries: options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES,
      });
      try {
        await sleep(delayMs, signal);
      } catch {
        return finish(newState(), attempt, started, { aborted: true });
      }
    }
  }
}

/**
 * fetch (undici) puts a response's connection back in its pool only in the event loop's next turn (a `setImmediate`
 * of its own, queued when the response ended): a request sent sooner — the next turn's, when the tools answered at once,
 * as a small Read does — finds the connection busy and opens another, which on the real API is a TCP and a TLS
 * handshake more per turn. So a client whose last response ended in this turn of the event loop waits for the next one
 * before it sends; otherwise (a tool that took its time, a new session) nothing waits.
 */
const responseJustEnded = new WeakSet<Anthropic>();

function responseEnded(client: Anthropic): void {
  responseJustEnded.add(client);
  setImmediate(() => responseJustEnded.delete(client));
}

function connectionReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const SDK_DEPRECATION_NOTICE = /^The model '[^']*' is deprecated and will reach end-of-life/;

/**
 * Runs the SDK's request call without its console notice that the model is deprecated: Claude Code prints nothing
 * on stderr for a model the person chose, and a script reading `toolgate -p`'s stderr must see what it sees there.
 * The SDK writes the notice synchronously as the call starts, so the swap covers that call only; any other warning
 * passes through.
 */
function withoutDeprecationNotice<T>(call: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && SDK_DEPRECATION_NOTICE.test(args[0])) return;
    warn(...args);
  };
  try {
    return call();
  } finally {
    console.warn = warn;
  }
}

function openStream(
  client: Anthropic,
  request: ModelRequest,
  signal: AbortSignal | undefined,
): Promise<{ data: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>; request_id: string | null | undefined }> {
  const { betas, ...body } = request;
  if (betas === undefined || betas.length === 0) return withoutDeprecationNotice(() => client.messages.create({ ...body, stream: true }, { signal, maxRetries: 0 }).withResponse());
  // The beta endpoint streams the same events under its own type names.
  const params = { ...body, betas: [...betas], stream: true } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming;
  return withoutDeprecationNotice(() => client.beta.messages.create(params, { signal, maxRetries: 0 }).withResponse()) as unknown as Promise<{
    data: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>;
    request_id: string | null | undefined;
  }>;
}

interface StepState {
  readonly blocks: Map<number, OpenBlock>;
  readonly assistant: { role: 'assistant'; content: Anthropic.Messages.ContentBlockParam[] };
  /** The response's id: kept beside the message, not on it (the API refuses any field but role and content). */
  messageId?: string;
  readonly toolUses: ToolUseBlock[];
  readonly rejected: Map<string, ToolResultBlockParam>;
  usage: Usage;
  stopReason: string | null;
  handedOver: number;
  model?: string;
  requestId?: string;
  /** When this attempt was sent and its first frames came (the faces' time-to-first-token figures). */
  readonly timing: { sentAt: number; firstEventAt?: number; firstContentAt?: number; firstTokenAt?: number };
}

/** Milliseconds since the epoch, to the fraction: comparable across events and with the face's own clock. */
const epochNow = (): number => performance.timeOrigin + performance.now();

function newState(): StepState {
  return { blocks: new Map(), assistant: { role: 'assistant', content: [] }, toolUses: [], rejected: new Map(), usage: emptyUsage(), stopReason: null, handedOver: 0, timing: { sentAt: epochNow() } };
}

function handleEvent(event: Anthropic.Messages.RawMessageStreamEvent, state: StepState, options: ModelStepOptions): void {
  const timing = state.timing;
  timing.firstEventAt ??= epochNow();
  if (event.type === 'content_block_start') timing.firstContentAt ??= epochNow();
  else if (event.type === 'content_block_delta') timing.firstTokenAt ??= epochNow();
  applyEvent(event, state, options);
  // After the event is applied: a block's own assistant_block comes before its content_block_stop, as the Agent SDK has it.
  if (!options.streamEvents) return;
  const ttft = event.type === 'message_start' ? { ttftMs: timing.firstEventAt - timing.sentAt } : {};
  options.emit?.({ type: 'stream_event', event, ...(state.messageId !== undefined ? { messageId: state.messageId } : {}), ...ttft });
}

function applyEvent(event: Anthropic.Messages.RawMessageStreamEvent, state: StepState, options: ModelStepOptions): void {
  switch (event.type) {
    case 'message_start':
      state.messageId = event.message.id;
      state.model = event.message.model;
      state.usage = usageFrom(event.message.usage as never);
      return;
    case 'content_block_start':
      state.blocks.set(event.index, { block: { ...(event.content_block as unknown as Record<string, unknown>) }, json: '', complete: false });
      return;
    case 'content_block_delta': {
      const open = state.blocks.get(event.index);
      if (!open) return;
      const delta = event.delta;
      if (delta.type === 'text_delta') {
        open.block.text = `${(open.block.text as string | undefined) ?? ''}${delta.text}`;
        options.emit?.({ type: 'text_delta', text: delta.text });
      } else if (delta.type === 'thinking_delta') {
        open.block.thinking = `${(open.block.thinking as string | undefined) ?? ''}${delta.thinking}`;
        options.emit?.({ type: 'thinking_delta', thinking: delta.thinking });
      } else if (delta.type === 'signature_delta') open.block.signature = delta.signature;
      else if (delta.type === 'input_json_delta') open.json += delta.partial_json;
      return;
    }
    case 'content_block_stop': {
      const open = state.blocks.get(event.index);
      if (!open) return;
      open.complete = true;
      closeBlock(open, state, options);
      return;
    }
    case 'message_delta':
      state.stopReason = event.delta.stop_reason ?? state.stopReason;
      state.usage = usageFrom(event.usage as never, state.usage);
      return;
    case 'message_stop':
      return;
  }
}

/** A finished block joins the message; a tool_use with a JSON-object input is handed over at once. */
function closeBlock(open: OpenBlock, state: StepState, options: ModelStepOptions): void {
  const block = open.block;
  if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    const parsed = parseInput(open.json);
    block.input = parsed.ok ? parsed.value : {};
    delete block.caller;
    if (block.type === 'tool_use') {
      const toolUse = block as unknown as ToolUseBlock;
      state.toolUses.push(toolUse);
      const param = paramOf(block);
      state.assistant.content.push(param);
      emitBlock(param, state, options);
      if (parsed.ok) {
        state.handedOver++;
        options.emit?.({ type: 'tool_use', block: toolUse });
        options.onToolUse?.(toolUse, state.assistant as AssistantMessage, state.usage);
      } else {
        state.rejected.set(toolUse.id, errorToolResult(toolUse.id, `The input of this ${String(block.name)} call is not a JSON object (${parsed.problem}); the call did not run. Send it again with valid JSON input.`));
      }
      return;
    }
  }
  if ((block.type === 'thinking' && !block.signature) || (block.type === 'text' && !block.text)) return;
  const param = paramOf(block);
  state.assistant.content.push(param);
  emitBlock(param, state, options);
}

function emitBlock(block: Anthropic.Messages.ContentBlockParam, state: StepState, options: ModelStepOptions): void {
  if (!options.emit) return;
  options.emit({
    type: 'assistant_block',
    block,
    messageId: state.messageId ?? '',
    model: state.model ?? '',
    usage: state.usage,
    ...(state.requestId !== undefined ? { requestId: state.requestId } : {}),
    timing: { ...state.timing },
  });
}

function finish(state: StepState, attempt: number, started: number, end: { aborted?: boolean; interrupted?: string; error?: string; failure?: ApiFailure }): ModelStepResult {
  // Blocks that never got their content_block_stop: text is kept as far as it went, a tool_use is answered.
  for (const open of [...state.blocks.values()].filter((b) => !b.complete)) {
    const block = open.block;
    if (block.type === 'text' && block.text && !end.aborted) state.assistant.content.push(paramOf(block));
    if (block.type === 'tool_use' && !end.aborted && !end.error) {
      const id = String(block.id);
      const cut = { type: 'tool_use', id, name: block.name, input: {} } as unknown as ToolUseBlock;
      state.toolUses.push(cut);
      state.assistant.content.push(cut as Anthropic.Messages.ToolUseBlockParam);
      state.rejected.set(id, errorToolResult(id, `This ${String(block.name)} call was cut off before its input was complete; it did not run.`));
    }
  }
  if (state.stopReason === 'max_tokens') {
    // The last call of a response cut by max_tokens is the one that was cut: say so rather than "invalid JSON".
    const last = state.toolUses.at(-1);
    if (last && state.rejected.has(last.id)) {
      state.rejected.set(last.id, errorToolResult(last.id, `The response reached max_tokens while this ${last.name} call's input was being written, so it did not run. Send it again in a shorter form, or split the work.`));
    }
  }
  return {
    assistant: state.assistant as AssistantMessage,
    stopReason: end.aborted || end.interrupted || end.error ? null : state.stopReason,
    usage: state.usage,
    toolUses: state.toolUses,
    rejected: state.rejected,
    handedOver: state.handedOver,
    aborted: end.aborted ?? false,
    interrupted: end.interrupted,
    error: end.error,
    attempts: attempt + 1,
    durationMs: performance.now() - started,
    ...(state.messageId !== undefined ? { messageId: state.messageId } : {}),
    ...(state.model !== undefined ? { model: state.model } : {}),
    ...(end.failure !== undefined ? { failure: end.failure } : {}),
  };
}

function parseInput(json: string): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (json.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, problem: `got ${Array.isArray(value) ? 'an array' : typeof value}` };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The request-side shape of a response block: drops response-only fields the API would reject on the way back. */
function paramOf(block: Record<string, unknown>): Anthropic.Messages.ContentBlockParam {
  if (block.type === 'text') return { type: 'text', text: String(block.text ?? '') };
  if (block.type === 'thinking') return { type: 'thinking', thinking: String(block.thinking ?? ''), signature: String(block.signature ?? '') };
  if (block.type === 'tool_use') return { type: 'tool_use', id: String(block.id), name: String(block.name), input: block.input };
  return block as unknown as Anthropic.Messages.ContentBlockParam;
}
