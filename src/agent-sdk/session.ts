/**
 * The Agent SDK face over one `Session` (src/session/): a prompt (a string, or a stream of user messages) in, the
 * session's events encoded as Agent-SDK messages out, by the one encoder. `toolgate/agent-sdk`'s `query()` wraps it
 * in a `Query` (its options translated by session-options-of.ts); `toolgate run -p` prints what it yields (its flags
 * translated by the CLI). Nothing here decides anything about the session: it translates.
 */
import type { QueryEvent } from '../agent/types.js';
import { Session, SessionOptionError, type SessionOptions } from '../session/index.js';
import type { MessageParam } from '../tool/tool.js';
import { AbortError } from './errors.js';
import { resultError, SdkMessageEncoder, type EncoderOptions, type SessionFacts } from './encoder.js';
import type { PermissionMode, SDKMessage, SDKUserMessage } from './messages.js';
import { AgentSdkOptionError } from './session-options.js';
import { writeSessionTitle } from './sessions.js';
import { UserFeed } from './user-feed.js';

export interface AgentSessionParams {
  readonly prompt: string | AsyncIterable<SDKUserMessage>;
  /** The session, in toolgate's words (from the Agent SDK's options, or from the CLI's flags). */
  readonly session: SessionOptions;
  /** What the encoder shows beyond the default messages (partial messages, hook events, sub-agents' text). */
  readonly encoder?: Pick<EncoderOptions, 'includePartialMessages' | 'includeHookEvents' | 'forwardSubagentText' | 'cliLines'>;
  /** Echo prompts back (`--replay-user-messages`). */
  readonly replayUserMessages?: boolean;
  /** After an error result, the stream ends by throwing (the Agent SDK's `query()`); the CLI prints instead. */
  readonly throwOnErrorResult?: boolean;
  /** The program's abort: the stream ends with `AbortError`, no result (as in the Agent SDK). */
  readonly abortSignal?: AbortSignal;
  /** The session's title (`options.title`), for a new session. */
  readonly title?: string;
  /** Said once on the warnings' way when the session starts (options accepted and ignored). */
  readonly note?: string;
  /** Each loop event before it is encoded (the CLI's stderr notices need a retry's full error text). */
  readonly onLoopEvent?: (event: QueryEvent) => void;
}

export class AgentSession {
  readonly #params: AgentSessionParams;
  readonly #session: Session;
  readonly #feed: UserFeed | undefined;
  #ready: Promise<void> | undefined;
  #mcpStatus: { name: string; status: string; source?: string }[] = [];
  #agents: string[] = [];
  #closed = false;
  /** Streamed prompts as they came, for `--replay-user-messages` (the loop's copy carries reminders). */
  readonly #replayed: MessageParam[] = [];

  constructor(params: AgentSessionParams) {
    const prompt = params.prompt;
    if (typeof prompt !== 'string' && (prompt === null || typeof prompt !== 'object' || typeof (prompt as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')) {
      throw new AgentSdkOptionError('prompt must be a string or an async iterable of user messages');
    }
    this.#params = params;
    try {
      this.#session = new Session({ ...params.session, ...(params.abortSignal ? { signal: params.abortSignal } : {}) });
    } catch (error) {
      throw error instanceof SessionOptionError ? new AgentSdkOptionError(error.message) : error;
    }
    this.#feed = typeof prompt === 'string' ? undefined : new UserFeed(prompt);
  }

  get session(): Session {
    return this.#session;
  }

  /** The session, set up (the control methods wait for it); its errors in the Agent SDK's terms. */
  ready(): Promise<void> {
    if (!this.#ready && this.#params.note) this.#params.session.warn?.(this.#params.note);
    this.#ready ??= this.#session.start().then(
      () => undefined,
      (error: unknown) => {
        throw error instanceof SessionOptionError ? new AgentSdkOptionError(error.message) : error;
      },
    );
    return this.#ready;
  }

  async *messages(): AsyncGenerator<SDKMessage, void> {
    const session = this.#session;
    try {
      await this.ready();
    } catch (error) {
      await session.close();
      throw error;
    }
    if (this.#params.title && !session.resumed) writeSessionTitle(session.folder, this.#params.title);
    if (this.#feed) this.#feed.start(session, (m) => this.#userMessage(m));
    else {
      session.send(this.#params.prompt as string);
      // A single prompt's session goes on while its background commands run, as the Agent SDK's does.
      session.end({ awaitBackgroundTasks: true });
    }
    const encoder = new SdkMessageEncoder(this.#facts(), this.#encoderOptions());
    const outer = this.#params.abortSignal;
    try {
      for await (const event of session.events()) {
        // Closed by the program: the loop finishes its turn (calls answered, transcript whole), nothing more is sent.
        if (this.#closed) continue;
        if (event.type === 'task_ended') {
          yield* encoder.taskEnded(event.task);
          continue;
        }
        if (event.type === 'init') await this.#initFacts();
        // Aborted by the program: no result, the stream ends with AbortError (below), as in the Agent SDK.
        if (event.type === 'result' && outer?.aborted) continue;
        this.#params.onLoopEvent?.(event);
        yield* encoder.encode(event);
      }
    } finally {
      this.#feed?.close();
      await session.close();
    }
    if (outer?.aborted) throw new AbortError('The session was aborted (options.abortController)');
    if (this.#closed) return;
    if (this.#params.throwOnErrorResult && encoder.lastResult?.is_error) throw resultError(encoder.lastResult);
  }

  // — control —

  interrupt(): void {
    this.#session.interrupt();
  }

  /** Ends the session: the running turn is interrupted, its tools answered, the input closed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#feed?.close();
    void this.#session.close();
  }

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    if (mode === 'bypassPermissions' && this.#params.session.allowBypass !== true && this.#params.session.mode !== 'bypassPermissions') {
      throw new AgentSdkOptionError('permission mode "bypassPermissions" needs options.allowDangerouslySkipPermissions: true');
    }
    await this.ready();
    this.#session.setMode(mode);
  }

  setModel(model: string | undefined): void {
    this.#session.setModel(model);
  }

  setMaxThinkingTokens(tokens: number | null): void {
    this.#session.setThinking(tokens === null ? undefined : tokens === 0 ? null : { type: 'enabled', budget_tokens: tokens });
  }

  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    if (!this.#feed) throw new AgentSdkOptionError('streamInput() needs a session started with a stream of messages as its prompt');
    return this.#feed.add(stream);
  }

  // — internals —

  async #initFacts(): Promise<void> {
    this.#agents = (await this.#session.agents()).map((d) => d.agentType);
    this.#mcpStatus = (await this.#session.mcp.status()).map((s) => ({ name: s.name, status: s.status, ...(s.source ? { source: s.source } : {}) }));
  }

  #userMessage(m: SDKUserMessage): SDKUserMessage['message']['content'] {
    if (m === null || typeof m !== 'object' || m.type !== 'user' || m.message === null || typeof m.message !== 'object' || m.message.role !== 'user') {
      throw new AgentSdkOptionError("each streamed prompt message must be { type: 'user', message: { role: 'user', content } }");
    }
    const content = m.message.content;
    if (this.#params.replayUserMessages) this.#replayed.push({ role: 'user', content });
    return content;
  }

  #facts(): SessionFacts {
    const session = this.#session;
    return {
      sessionId: session.id,
      permissionMode: () => {
        const mode = session.mode;
        return (mode === 'bubble' ? 'default' : mode) as PermissionMode;
      },
      mcpServers: () => this.#mcpStatus,
      agents: () => this.#agents,
      plugins: () => session.plugins.map((p) => ({ name: p.name, path: p.path })),
      apiKeySource: session.apiKeySource,
      ...(this.#params.session.betas ? { betas: this.#params.session.betas } : {}),
      additionalDirectories: this.#params.session.additionalDirectories ?? [],
      redact: (value) => session.redact(value),
      subagentTranscript: (agentId) => session.subagentTranscript(agentId),
      maxOutputTokens: 32_000,
      ...(session.sandboxEnabled !== undefined ? { sandboxEnabled: session.sandboxEnabled } : {}),
      queuedTurns: () => session.queuedMessages,
    };
  }

  #encoderOptions(): EncoderOptions {
    const structured = this.#session.structuredOutputTool;
    return {
      ...this.#params.encoder,
      ...(this.#params.replayUserMessages ? { replayUserMessages: true, replayedPrompt: () => this.#replayed.shift() } : {}),
      ...(structured ? { structuredOutputTool: structured } : {}),
    };
  }
}
