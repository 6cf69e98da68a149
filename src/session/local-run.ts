/**
 * A session's loop in this process: one `query()` per conversation, fed from the session's input, and what lives
 * between its turns — the live values the loop reads (the model, thinking, the turn's signal), the conversation as of
 * the last result, the background tasks its calls started. A conversation starts over (`startOver`) only when a person
 * asks (`/clear`, `/compact`, `/resume`): the running loop ends between turns, the next message starts the next one.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { query } from '../agent/query.js';
import { DEFAULT_MAX_TOKENS } from '../agent/request.js';
import { requestEnvOf } from '../agent/request-env.js';
import type { QueryLive } from '../agent/types.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import type { MessageParam } from '../tool/tool.js';
import { BackgroundTasks } from './background.js';
import { syncMcpRoots } from './mcp.js';
import type { SessionInput } from './input.js';
import type { SessionEvent, SessionOptions } from './options.js';
import type { SessionParts } from './setup.js';

/** How the next conversation starts: the transcript it goes on from, or the messages it carries. */
export interface NextConversation {
  readonly source?: 'clear' | 'compact' | 'resume';
  readonly resume?: string;
  readonly carried?: MessageParam[];
}

type SessionEndReason = ReturnType<NonNullable<QueryLive['sessionEnd']>>;

export class LocalRun {
  #turn: AbortController | undefined;
  /** A user turn runs (between its start and its result). */
  #turnActive = false;
  /** A message was taken by the loop and its turn has not started yet. */
  #taken = false;
  /** An interrupt came before the turn it meant started: that turn starts interrupted. */
  #abortNext = false;
  /** A command's model, for the turn its message starts. */
  #turnModel: string | undefined;
  readonly #turnModels = new WeakMap<MessageParam, string>();
  #looping = false;
  #restart: { readonly apply: () => NextConversation; readonly done: () => void } | undefined;
  #next: NextConversation | undefined;
  #endReason: SessionEndReason;
  model: string | undefined;
  thinking: Anthropic.Messages.ThinkingConfigParam | null | undefined;
  /** The face has no more messages, but the session goes on while its background tasks run. */
  endWhenIdle = false;
  messages: MessageParam[] = [];
  lastContextTokens = 0;
  /** Awaited before the loop takes each user message (the file checkpoint); a failure is a warning. */
  beforeTurn: ((message: MessageParam) => Promise<void>) | undefined;

  constructor(
    private readonly options: SessionOptions,
    private readonly input: SessionInput,
    private readonly signal: AbortSignal,
  ) {}

  /** The turn `message` starts runs on `model` (a command's frontmatter). */
  turnModel(message: MessageParam, model: string): void {
    this.#turnModels.set(message, model);
  }

  /** Stops the running turn (its tools answered), or the one a message just sent is about to start. */
  interrupt(): void {
    if (this.#turnActive) this.#turn?.abort(USER_INTERRUPT);
    else if (this.input.pending > 0 || this.#taken) this.#abortNext = true;
  }

  async *events(parts: SessionParts): AsyncGenerator<SessionEvent, void> {
    const { runtime } = parts;
    const background = new BackgroundTasks(runtime);
    const told: SessionEvent[] = [];
    const loop = this.options.loop ?? query;
    const o = this.options;
    // Claude Code's variables that shape each request (CLAUDE_CODE_MAX_OUTPUT_TOKENS, MAX_THINKING_TOKENS, …).
    const fromEnv = requestEnvOf(parts.env);
    const thinking = fromEnv.thinking(o.thinking, fromEnv.maxTokens ?? DEFAULT_MAX_TOKENS);
    this.#next = { ...(parts.resume !== undefined ? { resume: parts.resume } : {}) };
    try {
      for (;;) {
        this.input.restart();
        const first = await this.input.next();
        if (first === undefined || this.signal.aborted) break;
        this.#take(first);
        await this.#before(first);
        const next = this.#next ?? {};
        this.#next = undefined;
        this.#looping = true;
        this.#endReason = undefined;
        const run = loop({
          runtime,
          client: parts.client,
          prompt: [...(next.carried ?? []), first],
          model: parts.model,
          ...(o.maxTurns !== undefined ? { maxTurns: o.maxTurns } : {}),
          ...(parts.systemPrompt !== undefined ? { systemPrompt: parts.systemPrompt } : {}),
          ...(parts.appendSystemPrompt !== undefined ? { appendSystemPrompt: parts.appendSystemPrompt } : {}),
          ...(fromEnv.maxTokens !== undefined ? { maxTokens: fromEnv.maxTokens } : {}),
          ...(thinking ? { thinking } : {}),
          promptCaching: fromEnv.promptCaching,
          ...(o.effort ? { effort: o.effort } : {}),
          ...(o.betas && o.betas.length > 0 ? { betas: o.betas } : {}),
          signal: this.signal,
          ...(next.resume !== undefined ? { resume: next.resume } : {}),
          ...(next.source !== undefined ? { startSource: next.source } : {}),
          ...(o.persist === false ? { persistSession: false } : {}),
          ...(o.onTranscriptEntry ? { onTranscriptEntry: o.onTranscriptEntry } : {}),
          input: this.#reader(),
          ...(o.streamEvents ? { streamEvents: true } : {}),
          ...(o.maxBudgetUsd !== undefined ? { maxBudgetUsd: o.maxBudgetUsd } : {}),
          ...(o.fallbackModel !== undefined ? { fallbackModel: o.fallbackModel } : {}),
          ...(parts.structuredOutput ? { structuredOutput: parts.structuredOutput } : {}),
          live: this.#live(),
        });
        for await (const event of run) {
          if (event.type === 'tool_result') {
            background.saw(event.outcome);
            // A permission answer may have added a working folder: the MCP servers learn the new roots.
            await syncMcpRoots(parts.mcp, runtime);
          }
          else if (event.type === 'assistant') this.lastContextTokens = event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens;
          else if (event.type === 'result') {
            this.messages = [...event.result.messages];
            this.#turnModel = undefined;
            this.#turnActive = false;
          }
          yield event;
          if (event.type === 'result' && this.endWhenIdle && this.input.pending === 0 && !this.#restart) {
            const news = await background.news(this.signal, (task) => told.push({ type: 'task_ended', task }));
            while (told.length > 0) yield told.shift()!;
            if (news) this.input.push(news);
            else this.input.end();
          }
        }
        this.#looping = false;
        const restart = this.#restart;
        this.#restart = undefined;
        if (!restart || this.signal.aborted) break;
        // Applied here, before the next message can start the next conversation.
        this.#next = restart.apply();
        restart.done();
      }
    } finally {
      this.#looping = false;
    }
  }

  /**
   * Ends the running conversation (between turns; SessionEnd's `reason`, or `false`: none) and has the next message
   * start the next one, as `next()` says (after switching the runtime's session, if it does).
   */
  async startOver(reason: SessionEndReason, next: () => NextConversation): Promise<void> {
    if (!this.#looping) {
      this.#next = next();
      return;
    }
    await new Promise<void>((done) => {
      this.#restart = { apply: next, done };
      this.#endReason = reason;
      this.input.cut();
    });
  }

  #live(): QueryLive {
    return {
      model: () => this.#turnModel ?? this.model,
      thinking: () => this.thinking,
      turnSignal: () => {
        const turn = new AbortController();
        if (this.#abortNext) turn.abort(USER_INTERRUPT);
        this.#abortNext = false;
        this.#taken = false;
        this.#turnActive = true;
        this.#turn = turn;
        return turn.signal;
      },
      sessionEnd: () => this.#endReason,
    };
  }

  /** The loop's streaming input: each message taken sets its turn's model, if a command gave one. */
  #reader(): AsyncIterable<MessageParam> {
    const stream = this.input.stream();
    return {
      [Symbol.asyncIterator]: () => {
        const it = stream[Symbol.asyncIterator]();
        return {
          next: async () => {
            const next = await it.next();
            if (!next.done) {
              this.#take(next.value);
              await this.#before(next.value);
            }
            return next;
          },
        };
      },
    };
  }

  /** A user turn runs (between its start and its result). */
  get busy(): boolean {
    return this.#turnActive || this.#taken;
  }

  async #before(message: MessageParam): Promise<void> {
    try {
      await this.beforeTurn?.(message);
    } catch (error) {
      this.options.warn?.(`warning: no file checkpoint for this message (it cannot be rewound to): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #take(message: MessageParam): void {
    this.#taken = true;
    const model = this.#turnModels.get(message);
    if (model !== undefined) this.#turnModel = model;
  }
}
