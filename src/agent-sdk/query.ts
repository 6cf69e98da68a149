/**
 * `query({ prompt, options })`: the Agent SDK's entry, in this process. The returned `Query` is an async generator of
 * `SDKMessage`s with the control methods of the Agent SDK's `Query`. Options are checked when `query()` is called (an
 * unknown option throws at once); the session starts on the first `next()` or control call. Ending it early —
 * `return()`, `close()`, `[Symbol.asyncDispose]`, leaving a `for await` loop — interrupts the running turn, answers
 * its tool calls, ends the processes they started and disposes the runtime before the generator finishes.
 */
import path from 'node:path';
import { Delivery } from './delivery.js';
import { checkSessionStore, projectKeyOf, StoreMirror } from './session-store.js';
import { backgroundTasks, contextUsage, initializationResult, readMcpResource, reloadSkills, setMcpServers, type ContextUsageResponse, type InitializationResult, type McpReadResourceResult, type McpSetServersResult } from './query-control.js';
import { AgentSession } from './session.js';
import { DEFAULT_MODEL } from '../agent/request.js';
import type { PermissionMode, SDKMessage, SDKUserMessage } from './messages.js';
import type { McpServerConfig, Options, QueryParams } from './options.js';
import { checkOptions } from './session-options.js';
import { mcpServersOf, sessionOptionsOf } from './session-options-of.js';
import type { RewindResult } from '../session/index.js';

/** `rewindFiles`' answer: the Agent SDK's `RewindFilesResult`, with toolgate's list of what it cannot restore. */
export type RewindFilesResult = RewindResult;

export interface SlashCommand {
  name: string;
  description: string;
  argumentHint: string;
}

export interface ModelInfo {
  value: string;
  resolvedModel?: string;
  displayName: string;
  description: string;
}

export interface AgentInfo {
  name: string;
  description: string;
  model?: string;
}

export interface McpServerStatus {
  name: string;
  status: 'connected' | 'failed' | 'needs-auth' | 'pending' | 'disabled';
  error?: string;
  scope?: string;
  source?: string;
  tools?: { name: string }[];
}

/** The session: iterate it for its messages; its methods control it while it runs. */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  interrupt(): Promise<void>;
  setPermissionMode(mode: PermissionMode): Promise<void>;
  setModel(model?: string): Promise<void>;
  setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void>;
  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void>;
  supportedCommands(): Promise<SlashCommand[]>;
  supportedModels(): Promise<ModelInfo[]>;
  supportedAgents(): Promise<AgentInfo[]>;
  mcpServerStatus(): Promise<McpServerStatus[]>;
  stopTask(taskId: string): Promise<void>;
  reconnectMcpServer(serverName: string): Promise<void>;
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult>;
  backgroundTasks(toolUseId?: string): Promise<boolean>;
  getContextUsage(opts?: { detail?: 'summary' | 'full' }): Promise<ContextUsageResponse>;
  initializationResult(): Promise<InitializationResult>;
  reinitialize(): Promise<InitializationResult>;
  /** Merges into the flag settings layer (permissions and model while a session runs; managed policy still wins). */
  applyFlagSettings(settings: Record<string, unknown>): Promise<void>;
  /** Writes Claude Code's allowlisted key of a settings file (localSettings: outputStyle; userSettings: effortLevel). */
  updateSettings(source: 'localSettings' | 'userSettings', settings: Record<string, unknown>): Promise<void>;
  /** The file counts as read, unless it changed on disk since `mtime` (ms). */
  seedReadState(path: string, mtime: number): Promise<void>;
  reloadSkills(): Promise<{ skills: SlashCommand[] }>;
  readMcpResource(serverName: string, uri: string): Promise<McpReadResourceResult>;
  /** Narrows an MCP server's calls: asked for even when the mode would allow them (`null` clears it). */
  setMcpPermissionModeOverride(serverName: string, mode: 'default' | 'auto' | null): Promise<{ warning?: string }>;
  /** Files back as they were before a user message (`enableFileCheckpointing`), or what that would change (`dryRun`). */
  rewindFiles(userMessageId: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  close(): void;
  /** `await using q = query(...)` ends the session as `return()` does. */
  [Symbol.asyncDispose](): Promise<void>;
}

export function query(params: QueryParams): Query {
  if (params === null || typeof params !== 'object') throw new TypeError('query() takes { prompt, options }');
  const ignored = checkOptions(params.options);
  const options = params.options ?? {};
  const warn = (text: string) => options.stderr?.(`${text}\n`);
  const made: { agent?: AgentSession } = {};
  const delivery = new Delivery();
  const mirror = mirrorOf(options, warn);
  const session = sessionOptionsOf(options, {
    warn,
    delivered: (toolUseId, signal) => delivery.wait(toolUseId, signal),
    onInterrupt: () => made.agent?.interrupt(),
    applyUpdates: async (updates) => (made.agent ? (await made.agent.session.applyPermissionUpdates(updates)).errors : []),
  });
  made.agent = new AgentSession({
    prompt: params.prompt,
    session: mirror ? { ...session, onTranscriptEntry: (entry) => mirror.add(entry, made.agent!.session.id) } : session,
    encoder: {
      ...(options.includePartialMessages ? { includePartialMessages: true } : {}),
      ...(options.includeHookEvents ? { includeHookEvents: true } : {}),
      ...(options.forwardSubagentText ? { forwardSubagentText: true } : {}),
    },
    throwOnErrorResult: true,
    ...(options.abortController ? { abortSignal: options.abortController.signal } : {}),
    ...(options.title ? { title: options.title } : {}),
    // Accepted, not honoured: the program hears it once, on its stderr callback, rather than guessing.
    ...(ignored.length > 0 ? { note: `note: toolgate/agent-sdk ignores ${ignored.map((k) => `options.${k}`).join(', ')} (no Claude Code process is started; see docs/agent-sdk.md)` } : {}),
  });
  return new SessionQuery(made.agent, options, delivery, mirror);
}

/** `options.sessionStore`'s mirror (session-store.ts), or undefined without one. */
function mirrorOf(options: Options, warn: (text: string) => void): StoreMirror | undefined {
  if (options.sessionStore === undefined) {
    if (options.sessionStoreFlush !== undefined) checkSessionStore({ append: () => {}, load: () => {} }, options.sessionStoreFlush, undefined);
    return undefined;
  }
  const { store, flush } = checkSessionStore(options.sessionStore, options.sessionStoreFlush, options.persistSession);
  return new StoreMirror(store, flush, projectKeyOf(path.resolve(options.cwd ?? process.cwd())), warn);
}

class SessionQuery implements Query {
  readonly #session: AgentSession;
  readonly #options: Options;
  readonly #messages: AsyncGenerator<SDKMessage, void>;
  readonly #delivery: Delivery;
  readonly #mirror: StoreMirror | undefined;
  /** The servers setMcpServers() may replace: the program's in-process ones, then those of its earlier calls. */
  readonly #replaceableMcp: Set<string>;
  #ending: Promise<IteratorResult<SDKMessage, void>> | undefined;
  #started = false;

  constructor(session: AgentSession, options: Options, delivery: Delivery, mirror: StoreMirror | undefined) {
    this.#session = session;
    this.#mirror = mirror;
    this.#options = options;
    this.#delivery = delivery;
    this.#replaceableMcp = new Set(Object.entries(options.mcpServers ?? {}).filter(([, c]) => c?.type === 'sdk').map(([name]) => name));
    this.#messages = session.messages();
  }

  async next(): Promise<IteratorResult<SDKMessage, void>> {
    this.#started = true;
    let step: IteratorResult<SDKMessage, void>;
    try {
      step = await this.#messages.next();
    } catch (error) {
      this.#delivery.end();
      await this.#mirror?.flush();
      throw error;
    }
    // The store has a turn's entries before the program sees its result (sessionStoreFlush 'batched').
    if (step.done || step.value.type === 'result') await this.#mirror?.flush();
    if (step.done) this.#delivery.end();
    else this.#delivery.handed(step.value);
    return step;
  }

  /** Ends the session cleanly: interrupted, every call answered, processes ended, runtime disposed; then done. */
  return(): Promise<IteratorResult<SDKMessage, void>> {
    this.#delivery.end();
    this.#ending ??= (async () => {
      this.#session.close();
      if (!this.#started) return this.#messages.return();
      try {
        // Let the loop finish its turn (the interrupt makes that quick) so the transcript and the runtime close well.
        for (;;) if ((await this.#messages.next()).done) break;
      } catch {
        // the session ended with an error; ending it was asked for
      }
      return { done: true, value: undefined };
    })();
    return this.#ending;
  }

  throw(error: unknown): Promise<IteratorResult<SDKMessage, void>> {
    this.#delivery.end();
    this.#session.close();
    return this.#messages.throw(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  async interrupt(): Promise<void> {
    this.#session.interrupt();
  }

  setPermissionMode(mode: PermissionMode): Promise<void> {
    return this.#session.setPermissionMode(mode);
  }

  async setModel(model?: string): Promise<void> {
    this.#session.setModel(model);
  }

  async setMaxThinkingTokens(maxThinkingTokens: number | null): Promise<void> {
    this.#session.setMaxThinkingTokens(maxThinkingTokens);
  }

  streamInput(stream: AsyncIterable<SDKUserMessage>): Promise<void> {
    return this.#session.streamInput(stream);
  }

  async supportedCommands(): Promise<SlashCommand[]> {
    await this.#session.ready();
    return (await this.#session.session.commands()).filter((c) => c.userInvocable).map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint ?? '' }));
  }

  async supportedModels(): Promise<ModelInfo[]> {
    await this.#session.ready();
    const current = this.#session.session.model;
    const models: ModelInfo[] = [{ value: 'default', resolvedModel: DEFAULT_MODEL, displayName: 'Default', description: `toolgate's default model (${DEFAULT_MODEL})` }];
    if (current !== DEFAULT_MODEL) models.push({ value: current, resolvedModel: current, displayName: current, description: 'The model this session was started with' });
    return models;
  }

  async supportedAgents(): Promise<AgentInfo[]> {
    await this.#session.ready();
    return (await this.#session.session.agents()).map((d) => ({ name: d.agentType, description: d.description, ...(d.model ? { model: d.model } : {}) }));
  }

  async mcpServerStatus(): Promise<McpServerStatus[]> {
    await this.#session.ready();
    const status = await this.#session.session.mcp.status();
    return status.map((s) => ({
      name: s.name,
      status: s.status,
      scope: s.scope,
      ...(s.source ? { source: s.source } : {}),
      ...(s.error ? { error: s.error } : {}),
      tools: s.tools.map((name) => ({ name })),
    }));
  }

  async stopTask(taskId: string): Promise<void> {
    await this.#session.ready();
    await this.#session.session.stopTask(taskId);
  }

  async reconnectMcpServer(serverName: string): Promise<void> {
    await this.#session.ready();
    await this.#session.session.mcp.reconnect(serverName);
  }

  async toggleMcpServer(serverName: string, enabled: boolean): Promise<void> {
    await this.#session.ready();
    await this.#session.session.mcp.setEnabled(serverName, enabled);
  }

  setMcpServers(servers: Record<string, McpServerConfig>): Promise<McpSetServersResult> {
    const env = this.#options.env ?? process.env;
    return setMcpServers(this.#session, mcpServersOf(servers, env), this.#replaceableMcp);
  }

  backgroundTasks(toolUseId?: string): Promise<boolean> {
    return backgroundTasks(this.#session, toolUseId);
  }

  getContextUsage(): Promise<ContextUsageResponse> {
    return contextUsage(this.#session);
  }

  initializationResult(): Promise<InitializationResult> {
    return initializationResult(this.#session);
  }

  /** No transport here to have had a gap: a fresh answer, as initializationResult() gives. */
  reinitialize(): Promise<InitializationResult> {
    return initializationResult(this.#session);
  }

  async applyFlagSettings(settings: Record<string, unknown>): Promise<void> {
    await this.#session.ready();
    await this.#session.session.live.applyFlagSettings(settings);
  }

  async updateSettings(source: 'localSettings' | 'userSettings', settings: Record<string, unknown>): Promise<void> {
    await this.#session.ready();
    await this.#session.session.live.updateSettings(source, settings);
  }

  async seedReadState(path: string, mtime: number): Promise<void> {
    await this.#session.ready();
    await this.#session.session.live.seedReadState(path, mtime);
  }

  reloadSkills(): Promise<{ skills: SlashCommand[] }> {
    return reloadSkills(this.#session);
  }

  readMcpResource(serverName: string, uri: string): Promise<McpReadResourceResult> {
    return readMcpResource(this.#session, serverName, uri);
  }

  async setMcpPermissionModeOverride(serverName: string, mode: 'default' | 'auto' | null): Promise<{ warning?: string }> {
    await this.#session.ready();
    return this.#session.session.live.mcpModeOverride(serverName, mode);
  }

  async rewindFiles(userMessageId: string, options: { dryRun?: boolean } = {}): Promise<RewindFilesResult> {
    await this.#session.ready();
    // The Agent SDK's shape; toolgate's details (added, changed, deleted, not restorable) ride along.
    return this.#session.session.rewindFiles(userMessageId, options);
  }

  close(): void {
    this.#session.close();
    void this.return();
  }

  get options(): Options {
    return this.#options;
  }
}
