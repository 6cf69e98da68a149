/**
 * One session: one `query()` with streaming input, from its first message to its end, whatever face drives it. A face
 * sends messages (`send`), reads the events (`events`) and uses the verbs below; the session wires the rest once
 * (setup.ts) and keeps what lives as long as it: the runtime, the live values the loop reads (model, thinking, the
 * turn's signal), the conversation so far, the background tasks its calls started. SessionStart and SessionEnd fire
 * once per conversation: a conversation starts over only when a person asks (`clear`, `compact`, `resume`).
 */
import type Anthropic from '@anthropic-ai/sdk';
import os from 'node:os';
import path from 'node:path';
import { LiveSettings, type LiveTarget } from './live-settings.js';
import { commandCatalogOf, expandSlashCommand, listSlashCommands, type SlashCommandInfo } from '../agent/slash-commands.js';
import { listSessionsFor, subagentTranscriptPath, type SessionSummary } from '../agent/transcript.js';
import type { AgentDefinition, TaskInfo } from '../agent/types.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import type { SavedPermissionUpdates } from '../permissions/permission-updates.js';
import type { PermissionMode, PermissionUpdate, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, MessageParam, Tools } from '../tool/tool.js';
import { contextUsageOf, type ContextUsage } from './context-usage.js';
import { DurableRun, durableParts } from './durable.js';
import { clearConversation, compactLocal, historyOf, prepareMessage, resumeConversation, rewindConversation } from './conversations.js';
import { SessionInput } from './input.js';
import { LocalRun } from './local-run.js';
import { syncMcpRoots } from './mcp.js';
import { SessionMcp } from './mcp-verbs.js';
import { installSessionPlugin } from './plugins.js';
import type { SessionEvent, SessionOptions } from './options.js';
import { removeRule, type RuleRemoval } from './rules.js';
import { sessionEnv, setUpSession, type SessionParts } from './setup.js';
import type { CheckpointRecord, RewindResult } from './checkpoints.js';
import { checkpointsFor, type SessionCheckpoints } from './session-checkpoints.js';

/** A user message's content: text, or blocks (text, images, documents). */
export type UserContent = MessageParam['content'];

export class Session {
  readonly #options: SessionOptions;
  readonly #root = new AbortController();
  readonly #input = new SessionInput();
  readonly #local: LocalRun;
  /** On the durable backend: the session there (no runtime here). */
  readonly #durable: DurableRun | undefined;
  #ready: Promise<SessionParts> | undefined;
  #parts: SessionParts | undefined;
  #reading = false;
  #disposed: Promise<void> | undefined;
  readonly #checkpoints: SessionCheckpoints | undefined;
  /** The verbs that change what the session reads while it runs (live-settings.ts): settings, read files, skills, MCP. */
  readonly live = new LiveSettings(() => this.#liveTarget());
  /** The MCP verbs (mcp-verbs.ts): status, add / remove / toggle / reconnect a server, log in and out. */
  readonly mcp = new SessionMcp(() => this.start(), () => this.#durable !== undefined);

  constructor(options: SessionOptions = {}) {
    this.#options = options;
    this.#local = new LocalRun(options, this.#input, this.#root.signal);
    this.#checkpoints = checkpointsFor(options, this.#local, () => this.#need());
    const backend = options.backend;
    this.#durable =
      backend?.kind === 'restate'
        ? new DurableRun(backend.url, options, (id) => (options.onDurableRun ?? ((i: string) => options.warn?.(`session ${i} runs durably on ${backend.url}`)))(id))
        : undefined;
    const outer = options.signal;
    if (outer?.aborted) void this.close();
    else outer?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** Sets the session up (runtime, MCP servers, ids) once; every verb waits for it. */
  start(): Promise<SessionParts> {
    // On the durable backend nothing is set up here: the workers make the runtime, the session there keeps the rest.
    if (this.#durable) return Promise.resolve(this.#durableParts());
    this.#ready ??= (async () => {
      const parts = await setUpSession(this.#options, { signal: this.#root.signal, warn: (text) => this.#warn(text), sessionHooks: [this.live.hook()] });
      this.#parts = parts;
      if (this.#checkpoints) {
        // A resumed conversation's messages count: a checkpoint's place is the message's in the whole conversation.
        if (parts.resume !== undefined && this.#local.messages.length === 0) this.#local.messages = historyOf(parts);
        await this.#checkpoints.store();
      }
      // Skills' and commands' frontmatter is read now (the Skill tool's description needs it): its warnings too.
      const known = parts.runtime.warnings.length;
      await listSlashCommands(parts.runtime).catch(() => []);
      for (const w of parts.runtime.warnings.slice(known)) this.#warn(`warning: ${w}`);
      return parts;
    })();
    return this.#ready;
  }

  // — messages and events —

  /**
   * A user message for the session: a new turn when the loop is idle, else it waits (or joins the running turn's
   * results). A `/name args` text is expanded as its skill or command unless `verbatim`; `model` is its turn's model.
   */
  send(content: UserContent, options: { readonly verbatim?: boolean; readonly model?: string; readonly id?: string } = {}): void {
    const prepared = this.#prepare(content, options);
    const id = options.id;
    this.#input.push(id !== undefined && this.#checkpoints ? prepared.then((m) => (this.#checkpoints!.name(m, id), m)) : prepared);
  }

  /** `/name args` as the message it stands for (a skill or custom command), or undefined when it is not one. */
  async expand(text: string): Promise<{ readonly message: MessageParam; readonly model?: string } | undefined> {
    const { runtime } = await this.start();
    const expansion = await expandSlashCommand(runtime, text, { signal: this.#root.signal });
    return expansion && { message: expansion.message, ...(expansion.model ? { model: expansion.model } : {}) };
  }

  /** A skill or custom command a person can type by that name. */
  isCommand(name: string): boolean {
    return commandCatalogOf(this.#need().runtime)?.names.includes(name) === true;
  }

  /** The face's input failed: the session ends with an error result saying why. */
  fail(error: unknown): void {
    this.#input.fail(error);
  }

  /**
   * No more messages from the face: the session ends once the running turn has. With `awaitBackgroundTasks` it goes on
   * while the background tasks its calls started run: each end is told (`task_ended`), its news is the next turn.
   */
  end(options: { readonly awaitBackgroundTasks?: boolean } = {}): void {
    if (options.awaitBackgroundTasks && !this.#durable) this.#local.endWhenIdle = true;
    else this.#input.end();
  }

  /** The session's events, from its first message to its end (one reader). The runtime is disposed at the end. */
  async *events(): AsyncGenerator<SessionEvent, void> {
    if (this.#reading) throw new Error('a session has one reader of its events');
    this.#reading = true;
    try {
      if (this.#durable) yield* this.#durable.events(this.#input, this.#root.signal);
      else yield* this.#local.events(await this.start());
    } finally {
      this.#input.end();
      this.#root.abort(USER_INTERRUPT);
      await this.#dispose();
    }
  }

  /** Stops the running turn (its tools answered), or the one a message just sent is about to start; the session goes on. */
  interrupt(): void {
    this.#local.interrupt();
  }

  /** Ends the session now: the running turn is interrupted, its tools answered, the runtime disposed. */
  close(): Promise<void> {
    this.#input.end();
    this.#root.abort(USER_INTERRUPT);
    // Nobody reads the events: nothing else would dispose what was set up.
    if (!this.#reading) return this.#dispose();
    return this.#disposed ?? Promise.resolve();
  }

  get closed(): boolean {
    return this.#root.signal.aborted;
  }

  // — what the session is —

  get id(): string {
    return this.#durable?.sessionId ?? this.#parts?.runtime.sessionId ?? this.#options.sessionId ?? '';
  }

  get cwd(): string {
    return this.#need().runtime.cwd;
  }

  /** The session's folder (its transcript, saved outputs, sub-agents' transcripts). */
  get folder(): string {
    return this.#need().runtime.sessionDir;
  }

  /** It goes on from an earlier conversation (`resume`, `continue`). */
  get resumed(): boolean {
    return this.#need().resume !== undefined;
  }

  /** The model of the next request: the one set (`setModel`), else the session's. */
  get model(): string {
    return this.#local.model ?? this.#need().model;
  }

  get mode(): PermissionMode {
    if (this.#durable) return this.#options.mode ?? 'default';
    return this.#need().runtime.permissionContext.mode;
  }

  /** The plugins this session loaded: name and folder. */
  get plugins(): readonly { readonly name: string; readonly path: string }[] {
    return this.#parts?.plugins ?? [];
  }

  /** Installs and enables `plugin@marketplace` (session/plugins.ts); `confirm` sees what it contains. Loads next session. */
  installPlugin(ref: string, confirm: (contents: readonly string[]) => Promise<boolean>): ReturnType<typeof installSessionPlugin> {
    const parts = this.#need();
    return installSessionPlugin(this.#options, { cwd: parts.runtime.cwd, env: parts.env }, ref, confirm);
  }

  get apiKeySource(): SessionParts['apiKeySource'] {
    return this.#need().apiKeySource;
  }

  /** The structured-output tool's name, when the session has an output schema. */
  get structuredOutputTool(): string | undefined {
    return this.#need().structuredOutput?.toolName;
  }

  /** Messages sent that wait for their turn (a result's `queued_turn_count`). */
  get queuedMessages(): number {
    return this.#input.pending;
  }

  /** Bash commands run in the OS sandbox (undefined on the durable backend, whose workers run them). */
  get sandboxEnabled(): boolean | undefined {
    return this.#durable ? undefined : this.#parts?.runtime.sandboxEnabled;
  }

  get tools(): Tools {
    return this.#need().runtime.tools;
  }

  findTool(name: string): AnyTool | undefined {
    return this.#need().runtime.findTool(name);
  }

  /** The conversation as of the last turn's end. */
  get messages(): readonly MessageParam[] {
    return this.#local.messages;
  }

  /** `value` with every secret the session knows replaced. */
  redact<T>(value: T): T {
    // On the durable backend the workers redacted what they sent.
    if (this.#durable) return value;
    return this.#parts?.runtime.redact(value) ?? value;
  }

  /** Where a sub-agent's conversation is kept. */
  subagentTranscript(agentId: string): string {
    return this.#durable ? '' : subagentTranscriptPath(this.#need().runtime.sessionDir, agentId);
  }

  // — live values —

  setModel(model: string | undefined): void {
    this.#local.model = model;
    if (this.#durable) this.#durable.model = model ?? this.#options.model;
  }

  /** Thinking for the next requests: a configuration, `null` for none, undefined for the session's. */
  setThinking(thinking: Anthropic.Messages.ThinkingConfigParam | null | undefined): void {
    this.#local.thinking = thinking;
  }

  /** The permission mode from the next call on (the session has started). */
  setMode(mode: PermissionMode): void {
    this.#need().runtime.setMode(mode);
  }

  // — permissions —

  /** The permission context in effect (mode, rules with their files, working directories). */
  permissions(): ToolPermissionContext {
    return this.#need().runtime.permissionContext;
  }

  /** The one applier: file destinations written, then everything applied to the session. */
  async applyPermissionUpdates(updates: readonly PermissionUpdate[], options: { readonly onlySaved?: boolean } = {}): Promise<SavedPermissionUpdates> {
    const parts = await this.start();
    const saved = await parts.runtime.applyPermissionUpdates(updates, options);
    await syncMcpRoots(parts.mcp, parts.runtime);
    return saved;
  }

  /** A rule taken out of the session and of the settings files it was read from (`/permissions remove`). */
  async removeRule(ruleText: string): Promise<RuleRemoval> {
    return removeRule((await this.start()).runtime, ruleText);
  }

  // — tasks, agents, commands —

  tasks(): readonly TaskInfo[] {
    return this.#durable ? [] : (this.#parts?.runtime.tasks() ?? []);
  }

  async stopTask(taskId: string): Promise<void> {
    await (await this.start()).runtime.stopTask(taskId);
  }

  /** Running foreground commands go on as background tasks (Ctrl+B); returns the calls moved. */
  moveToBackground(toolUseId?: string): string[] {
    return this.#durable ? [] : (this.#parts?.runtime.backgroundToolUse(toolUseId) ?? []);
  }

  /** A person's message waits for the running turn to end: a tool that only waits (ScheduleWakeup) stops waiting. */
  wake(): void {
    if (!this.#durable) this.#parts?.runtime.wake();
  }

  async agents(): Promise<readonly AgentDefinition[]> {
    if (this.#durable) return this.#durable.agents.map((agentType) => ({ agentType, description: '', systemPrompt: '', source: 'built-in' as const }));
    return (await this.start()).runtime.agentDefinitions();
  }

  async commands(): Promise<SlashCommandInfo[]> {
    return this.#durable ? [] : listSlashCommands((await this.start()).runtime);
  }

  /** What the next request would hold, by part (`/context`). */
  async contextUsage(): Promise<ContextUsage> {
    const parts = await this.start();
    return contextUsageOf(parts.runtime, this.#local.messages, this.model, this.#local.lastContextTokens);
  }

  // — conversations —

  /** This folder's other sessions, newest first (`/resume`'s list). */
  async otherSessions(): Promise<SessionSummary[]> {
    const { runtime } = await this.start();
    return listSessionsFor(path.dirname(runtime.sessionDir), runtime.cwd).filter((s) => s.id !== runtime.sessionId);
  }

  /** The conversation the session goes on from, when it resumes one (`--continue`, `--resume`): to show it. */
  async history(): Promise<MessageParam[]> {
    return historyOf(await this.start());
  }

  /** A fresh conversation under a new id (`/clear`; conversations.ts). */
  async clear(): Promise<string> {
    return clearConversation(await this.start(), this.#local);
  }

  /** Goes on with another of this folder's sessions (`/resume ID`); returns its conversation. */
  async resume(sessionId: string): Promise<MessageParam[]> {
    return resumeConversation(await this.start(), this.#local, sessionId);
  }

  /** Summarises the conversation and goes on from the summary (`/compact`; conversations.ts). */
  async compact(instructions?: string): Promise<{ summary: string; notices: readonly string[]; costUsd: number }> {
    const parts = await this.start();
    return compactLocal(parts, this.#local, { options: this.#options, model: this.model, signal: this.#root.signal, ...(instructions ? { instructions } : {}) });
  }

  /**
   * The tracked files put back as they were before the user message `userMessageId` (the id it was sent with, or its
   * transcript id), or what that would change (`dryRun`); what cannot be restored is named (session-checkpoints.ts).
   */
  async rewindFiles(userMessageId: string, options: { readonly dryRun?: boolean } = {}): Promise<RewindResult> {
    if (!this.#checkpoints) return { canRewind: false, error: 'File checkpointing is not enabled for this session' };
    await this.start();
    if (this.#local.busy && !options.dryRun) return { canRewind: false, error: 'A turn is running: interrupt it before rewinding files' };
    return this.#checkpoints.rewind(userMessageId, this.#local.messages, options);
  }

  /** The conversation back to before its user message at `index`; that message's text comes back (conversations.ts). */
  async rewindConversation(index: number): Promise<{ readonly sessionId: string; readonly text: string; readonly messages: MessageParam[] }> {
    const parts = await this.start();
    if (this.#local.busy) throw new Error('A turn is running: interrupt it before rewinding the conversation');
    return rewindConversation(parts, this.#local, index);
  }

  /** The file checkpoints, oldest first (`/rewind`'s list); none when checkpointing is off. */
  async checkpoints(): Promise<readonly CheckpointRecord[]> {
    if (!this.#checkpoints) return [];
    await this.start();
    return this.#checkpoints.list();
  }

  // — internals —

  async #prepare(content: UserContent, options: { readonly verbatim?: boolean; readonly model?: string }): Promise<MessageParam> {
    // On the durable backend the workers have the skills: a message goes as typed.
    const expand = !options.verbatim && !this.#durable && this.#options.expandSlashCommands !== false;
    return prepareMessage(content, options.model, this.#local, expand ? (text) => this.expand(text) : undefined);
  }

  /** What the faces read of a durable session (durable.ts durableParts): the verbs that need a runtime say so. */
  #durableParts(): SessionParts {
    return (this.#parts ??= durableParts(this.#options, sessionEnv(this.#options)));
  }

  async #liveTarget(): Promise<LiveTarget> {
    if (this.#durable) throw new Error('settings, skills and MCP servers cannot change while a durable session runs (its workers read them at start)');
    const { runtime, env, mcp } = await this.start();
    const sources = [...(this.#options.settingSources ?? ['user', 'project', 'local']), 'managed' as const];
    return { runtime, ...(mcp ? { mcp } : {}), homeDir: env.HOME ?? os.homedir(), sources, signal: this.#root.signal, setModel: (m) => this.setModel(m) };
  }

  #need(): SessionParts {
    if (this.#durable) return this.#durableParts();
    if (!this.#parts) throw new Error('the session has not started yet (await start())');
    return this.#parts;
  }

  #warn(text: string): void {
    this.#options.warn?.(text);
  }

  #dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.#root.abort(USER_INTERRUPT);
      const parts = await this.#ready?.catch(() => undefined);
      await parts?.runtime.dispose().catch((error: unknown) => this.#warn(`warning: ${error instanceof Error ? error.message : String(error)}`));
    })();
    return this.#disposed;
  }
}

