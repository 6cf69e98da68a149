/**
 * The session engine: Agent-SDK options and a prompt (a string, or a stream of user messages) in, Agent-SDK messages
 * out. It sets the session up (session-setup.ts), runs the one loop (`query()` of src/agent) and encodes every event
 * with the one encoder. `toolgate/agent-sdk`'s `query()` wraps it in a `Query`; `toolgate run -p` prints what it
 * yields. Control (interrupt, model, thinking, permission mode, more input) reaches the loop through `live` values
 * and the input stream — nothing is shared with any other session.
 */
import type Anthropic from '@anthropic-ai/sdk';
import path from 'node:path';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import { redactorFor } from '../execution/redaction.js';
import { query as loop } from '../agent/query.js';
import { expandSlashCommand, listSlashCommands } from '../agent/slash-commands.js';
import type { QueryEvent, QueryLive } from '../agent/types.js';
import type { MessageParam } from '../tool/tool.js';
import { agentDefinitionsFor } from '../tools/agent/index.js';
import { describeTaskEnd } from '../tools/bash/task-notification.js';
import { AbortError } from './errors.js';
import { resultError, SdkMessageEncoder, type EncoderOptions, type SessionFacts } from './encoder.js';
import type { PermissionMode, SDKMessage, SDKUserMessage } from './messages.js';
import type { Options } from './options.js';
import { AgentSdkOptionError, checkOptions } from './session-options.js';
import { setUpSession, type SessionPieces } from './session-setup.js';
import { writeSessionTitle } from './sessions.js';
import { UserFeed } from './user-feed.js';

export interface AgentSessionParams {
  readonly prompt: string | AsyncIterable<SDKUserMessage>;
  readonly options?: Options;
  /** Echo prompts back (`--replay-user-messages`). */
  readonly replayUserMessages?: boolean;
  /** After an error result, the stream ends by throwing (the Agent SDK's `query()`); the CLI prints instead. */
  readonly throwOnErrorResult?: boolean;
  /** Settings files beyond `options.settings` (the CLI's repeatable `--settings`; later wins). */
  readonly settingsFiles?: readonly string[];
  /** Each loop event before it is encoded (the CLI's stderr notices need a retry's full error text). */
  readonly onLoopEvent?: (event: QueryEvent) => void;
}

export class AgentSession {
  readonly #options: Options;
  readonly #params: AgentSessionParams;
  readonly #root = new AbortController();
  readonly #feed: UserFeed | undefined;
  #pieces: SessionPieces | undefined;
  #ready: Promise<SessionPieces> | undefined;
  #turn: AbortController | undefined;
  #model: string | undefined;
  #thinking: Anthropic.Messages.ThinkingConfigParam | null | undefined;
  #mcpStatus: { name: string; status: string; source?: string }[] = [];
  #closed = false;
  /** Streamed prompts as they came, for `--replay-user-messages` (the loop's copy carries reminders). */
  readonly #replayed: MessageParam[] = [];
  readonly #ignored: string[];

  constructor(params: AgentSessionParams) {
    this.#ignored = checkOptions(params.options);
    this.#options = params.options ?? {};
    this.#params = params;
    const prompt = params.prompt;
    if (typeof prompt !== 'string' && (prompt === null || typeof prompt !== 'object' || typeof (prompt as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')) {
      throw new AgentSdkOptionError('prompt must be a string or an async iterable of user messages');
    }
    this.#feed = typeof prompt === 'string' ? undefined : new UserFeed(prompt);
    const outer = this.#options.abortController?.signal;
    if (outer?.aborted) this.#root.abort(outer.reason);
    else outer?.addEventListener('abort', () => this.#root.abort(outer.reason), { once: true });
  }

  /** The session's pieces once they exist (the control methods wait for them). */
  ready(): Promise<SessionPieces> {
    // Accepted, not honoured: the program hears it once, on its stderr callback, rather than guessing.
    if (!this.#ready && this.#ignored.length > 0) {
      this.#warn(`note: toolgate/agent-sdk ignores ${this.#ignored.map((k) => `options.${k}`).join(', ')} (no Claude Code process is started; see docs/agent-sdk.md)`);
    }
    this.#ready ??= setUpSession(this.#options, {
      onInterrupt: () => this.#turn?.abort(USER_INTERRUPT),
      warn: (text) => this.#warn(text),
      signal: this.#root.signal,
      ...(this.#params.settingsFiles ? { settingsFiles: this.#params.settingsFiles } : {}),
    }).then((p) => (this.#pieces = p));
    return this.#ready;
  }

  async *messages(): AsyncGenerator<SDKMessage, void> {
    const pieces = await this.ready();
    const { runtime } = pieces;
    try {
      if (this.#options.title && pieces.resume === undefined) writeSessionTitle(runtime.sessionDir, this.#options.title);
      let prompt: string | MessageParam[];
      let model = pieces.model;
      if (this.#feed) {
        this.#feed.start((m) => this.#userMessage(m));
        const first = await this.#feed.next();
        if (first === undefined) return;
        prompt = [first];
      } else {
        const text = this.#params.prompt as string;
        const expansion = this.#options.verbatimPrompts ? undefined : await expandSlashCommand(runtime, text, { signal: this.#root.signal });
        prompt = expansion ? [expansion.message] : text;
        if (expansion?.model) model = expansion.model;
      }
      const encoder = new SdkMessageEncoder(this.#facts(pieces), this.#encoderOptions(pieces));
      // A single prompt's session goes on while its background commands run, as the Agent SDK's does: when one ends,
      // its messages go out and its notification is the next user turn. Nothing is asked before a turn has ended.
      const side: SDKMessage[] = [];
      const turnEnds = new TurnEnds();
      const input = this.#feed ?? backgroundTurns(turnEnds, () => this.#taskNews(runtime, encoder, side));
      const live: QueryLive = {
        model: () => this.#model,
        thinking: () => this.#thinking,
        turnSignal: () => (this.#turn = new AbortController()).signal,
      };
      const events = loop({
        runtime,
        client: pieces.client,
        prompt,
        model,
        ...(this.#options.maxTurns !== undefined ? { maxTurns: this.#options.maxTurns } : {}),
        ...(pieces.systemPrompt !== undefined ? { systemPrompt: pieces.systemPrompt } : {}),
        ...(pieces.appendSystemPrompt !== undefined ? { appendSystemPrompt: pieces.appendSystemPrompt } : {}),
        ...thinkingOf(this.#options),
        signal: this.#root.signal,
        ...(pieces.resume !== undefined ? { resume: pieces.resume } : {}),
        ...(this.#options.persistSession === false ? { persistSession: false } : {}),
        input,
        ...(this.#options.includePartialMessages ? { streamEvents: true } : {}),
        ...(this.#options.maxBudgetUsd !== undefined ? { maxBudgetUsd: this.#options.maxBudgetUsd } : {}),
        ...(this.#options.fallbackModel !== undefined ? { fallbackModel: this.#options.fallbackModel } : {}),
        ...(pieces.structuredOutput ? { structuredOutput: pieces.structuredOutput } : {}),
        live,
      });
      const outer = this.#options.abortController?.signal;
      for await (const event of events) {
        // Closed by the program: the loop finishes its turn (calls answered, transcript whole), nothing more is sent.
        if (this.#closed) continue;
        yield* side.splice(0);
        if (event.type === 'init' && pieces.mcp) this.#mcpStatus = await mcpStatusOf(pieces);
        // Aborted by the program: no result, the stream ends with AbortError (below), as in the Agent SDK.
        if (event.type === 'result' && outer?.aborted) continue;
        this.#params.onLoopEvent?.(event);
        for (const message of encoder.encode(event)) yield message;
        if (event.type === 'result') turnEnds.ended();
      }
      if (!this.#closed && !outer?.aborted) yield* side.splice(0);
      if (outer?.aborted) throw new AbortError('The session was aborted (options.abortController)');
      if (this.#closed) return;
      if (this.#params.throwOnErrorResult && encoder.lastResult?.is_error) throw resultError(encoder.lastResult);
    } finally {
      this.#feed?.close();
      this.#root.abort(USER_INTERRUPT);
      await runtime.dispose().catch((error: unknown) => this.#warn(`warning: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  // — control —

  interrupt(): void {
    this.#turn?.abort(USER_INTERRUPT);
  }

  /** Ends the session: the running turn is interrupted, its tools answered, the input closed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed?.close();
    this.#root.abort(USER_INTERRUPT);
  }

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    if (mode === 'bypassPermissions' && this.#options.allowDangerouslySkipPermissions !== true) {
      throw new AgentSdkOptionError('permission mode "bypassPermissions" needs options.allowDangerouslySkipPermissions: true');
    }
    (await this.ready()).runtime.setMode(mode);
  }

  setModel(model: string | undefined): void {
    this.#model = model;
  }

  setMaxThinkingTokens(tokens: number | null): void {
    this.#thinking = tokens === null ? undefined : tokens === 0 ? null : { type: 'enabled', budget_tokens: tokens };
  }

  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    if (!this.#feed) throw new AgentSdkOptionError('streamInput() needs a session started with a stream of messages as its prompt');
    return this.#feed.add(stream);
  }

  async pieces(): Promise<SessionPieces> {
    return this.ready();
  }

  async commands(): Promise<{ name: string; description: string; argumentHint: string }[]> {
    const { runtime } = await this.ready();
    return (await listSlashCommands(runtime)).filter((c) => c.userInvocable).map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint ?? '' }));
  }

  async agents(): Promise<{ name: string; description: string; model?: string }[]> {
    const { runtime } = await this.ready();
    return agentDefinitionsFor(runtime.context).map((d) => ({ name: d.agentType, description: d.description, ...(d.model ? { model: d.model } : {}) }));
  }

  async stopTask(taskId: string): Promise<void> {
    const { runtime } = await this.ready();
    const tasks = runtime.context.services.tasks;
    if (!tasks?.get(taskId)) throw new Error(`no task ${taskId} in this session`);
    await tasks.stop(taskId);
  }

  // — internals —

  /**
   * Waits for a background command of this session to end, or for news while one runs (a Monitor's lines); an end's
   * messages go to `side`. Returns the news the model gets as its next turn, or undefined once none is running (or
   * the session is ending). A task that ends without
   * news (stopped on request) is reported and waited past.
   */
  async #taskNews(runtime: SessionPieces['runtime'], encoder: SdkMessageEncoder, side: SDKMessage[]): Promise<MessageParam | undefined> {
    const tasks = runtime.context.services.tasks;
    const signal = this.#root.signal;
    for (;;) {
      const ids = encoder.backgroundTaskIds();
      if (ids.length === 0 || !tasks || signal.aborted) return undefined;
      let off = () => {};
      // Listening before looking: a task that ends in between is not missed.
      const queue = runtime.context.services.notifications;
      const changed = new Promise<void>((resolve) => {
        const unsubscribe = tasks.onTaskEnd(() => resolve());
        // News from a task that still runs (a Monitor's lines) is a turn of its own too.
        const unheard = queue?.onArrival(() => resolve());
        const onAbort = () => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        off = () => (unsubscribe(), unheard?.(), signal.removeEventListener('abort', onAbort));
      });
      const ended = ids.flatMap((id) => {
        const task = tasks.get(id);
        return task === undefined || task.status !== 'running' ? [{ id, task }] : [];
      });
      if (ended.length === 0 && (queue?.size ?? 0) === 0) {
        // The tasks' processes do not hold the event loop (a program that is done must not wait for them), but this
        // session is waiting for them: it holds it until one ends, or a `toolgate -p` would exit in the middle.
        const hold = setInterval(() => undefined, 60_000);
        try {
          await changed;
        } finally {
          clearInterval(hold);
        }
        off();
        continue;
      }
      off();
      for (const { id, task } of ended) {
        side.push(
          ...encoder.taskEnded(
            task
              ? { id, status: task.status === 'running' ? 'failed' : task.status, outputFile: task.outputFile, summary: describeTaskEnd(task), endedAt: task.endedAt ?? Date.now() }
              : { id, status: 'failed', outputFile: '', summary: `Background task ${id} is gone`, endedAt: Date.now() },
          ),
        );
      }
      const news = runtime.context.services.notifications?.drain() ?? [];
      if (news.length > 0) return { role: 'user', content: news.flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content)) };
    }
  }

  #warn(text: string): void {
    const write = this.#options.stderr;
    if (write) write(`${text}\n`);
  }

  async #userMessage(m: SDKUserMessage): Promise<MessageParam> {
    if (m === null || typeof m !== 'object' || m.type !== 'user' || m.message === null || typeof m.message !== 'object' || m.message.role !== 'user') {
      throw new AgentSdkOptionError("each streamed prompt message must be { type: 'user', message: { role: 'user', content } }");
    }
    const content = m.message.content;
    if (this.#params.replayUserMessages) this.#replayed.push({ role: 'user', content });
    if (typeof content === 'string' && content.startsWith('/') && !this.#options.verbatimPrompts && this.#pieces) {
      const expansion = await expandSlashCommand(this.#pieces.runtime, content, { signal: this.#root.signal });
      if (expansion) return expansion.message;
    }
    return { role: 'user', content };
  }

  #facts(pieces: SessionPieces): SessionFacts {
    const { runtime } = pieces;
    return {
      sessionId: runtime.sessionId,
      permissionMode: () => {
        const mode = runtime.permissionContext.mode;
        return (mode === 'bubble' ? 'default' : mode) as PermissionMode;
      },
      mcpServers: () => this.#mcpStatus.map((s) => ({ name: s.name, status: s.status, ...(s.source ? { source: s.source } : {}) })),
      agents: () => agentDefinitionsFor(runtime.context).map((d) => d.agentType),
      apiKeySource: pieces.apiKeySource,
      ...(this.#options.betas ? { betas: this.#options.betas } : {}),
      redact: (value) => redactorFor(runtime.context)?.redactJson(value) ?? value,
      subagentTranscript: (agentId) => path.join(runtime.sessionDir, 'subagents', `${agentId.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`),
      maxOutputTokens: 32_000,
    };
  }

  #encoderOptions(pieces: SessionPieces): EncoderOptions {
    return {
      ...(this.#options.includePartialMessages ? { includePartialMessages: true } : {}),
      ...(this.#options.includeHookEvents ? { includeHookEvents: true } : {}),
      ...(this.#options.forwardSubagentText ? { forwardSubagentText: true } : {}),
      ...(this.#params.replayUserMessages ? { replayUserMessages: true, replayedPrompt: () => this.#replayed.shift() } : {}),
      ...(pieces.structuredOutput ? { structuredOutputTool: pieces.structuredOutput.toolName } : {}),
    };
  }
}

/** Counts the user turns that have ended (their result sent). */
class TurnEnds {
  #count = 0;
  #wake: (() => void) | undefined;

  ended(): void {
    this.#count++;
    this.#wake?.();
  }

  /** Resolves once more than `seen` turns have ended; returns how many have. */
  async after(seen: number): Promise<number> {
    while (this.#count <= seen) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#count;
  }
}

/** The user turns of a single-prompt session after its first: one per background command's news, while there is any. */
async function* backgroundTurns(turnEnds: TurnEnds, news: () => Promise<MessageParam | undefined>): AsyncGenerator<MessageParam> {
  for (let seen = 0; ; ) {
    seen = await turnEnds.after(seen);
    const message = await news();
    if (message === undefined) return;
    yield message;
  }
}

/** MCP servers as the init message lists them (status words of the Agent SDK). */
export async function mcpStatusOf(pieces: SessionPieces): Promise<{ name: string; status: string; source?: string; error?: string; tools: string[]; scope: string }[]> {
  if (!pieces.mcp) return [];
  const status = await pieces.mcp.status();
  return status.map((s) => ({
    name: s.name,
    status: s.state === 'connected' ? 'connected' : s.state === 'failed' ? 'failed' : s.state === 'needs-login' ? 'needs-auth' : s.state === 'rejected' ? 'disabled' : 'pending',
    ...(s.type === 'sdk' ? { source: 'sdk' } : {}),
    ...(s.error ? { error: s.error } : {}),
    tools: [...s.tools],
    scope: s.scope,
  }));
}

/** `thinking` (or the older `maxThinkingTokens`) as the Messages API's thinking parameter. */
function thinkingOf(options: Options): { thinking?: Anthropic.Messages.ThinkingConfigParam } {
  const t = options.thinking;
  if (t?.type === 'disabled') return {};
  if (t?.type === 'adaptive') return { thinking: { type: 'adaptive' } };
  if (t?.type === 'enabled') return { thinking: { type: 'enabled', budget_tokens: t.budgetTokens ?? 10_000 } };
  if (options.maxThinkingTokens !== undefined && options.maxThinkingTokens > 0) return { thinking: { type: 'enabled', budget_tokens: options.maxThinkingTokens } };
  return {};
}
