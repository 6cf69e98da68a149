/**
 * One interactive session, without a screen: the conversation, the prompt history, the running turn and its abort
 * controller, messages queued while a turn runs, the mode cycle, the session's totals. Its slash commands live in
 * session-commands.ts. The Ink app and the plain printer drive it the same way.
 */
import { commandCatalogOf, expandSlashCommand } from '../agent/slash-commands.js';
import type { CompactResult } from '../agent/compact.js';
import type { QueryEvent, ToolRuntime, Usage } from '../agent/types.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import type { McpClientManager } from '../mcp/manager.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { MessageParam } from '../tool/tool.js';
import { runSessionCommand } from './session-commands.js';
import type { SessionStore, ToolItem } from './session-store.js';

export { describeCommands, describeMcp, describeRules, HELP_TEXT, SESSION_COMMANDS } from './session-commands.js';

/**
 * One turn of the loop. With `resume` (the runtime's session id) the conversation so far is the session's transcript
 * and `prompt` is only the new message; without it `prompt` is the whole conversation.
 */
export type RunQuery = (options: {
  readonly prompt: readonly MessageParam[];
  readonly model: string;
  readonly signal: AbortSignal;
  readonly resume?: string;
}) => AsyncIterable<QueryEvent>;

/** `/compact`: summarises the conversation with a model call (agent/compact.ts, bound to the session's client). */
export type CompactFn = (options: { readonly messages: readonly MessageParam[]; readonly model: string; readonly instructions?: string; readonly signal: AbortSignal }) => Promise<CompactResult>;

export interface SessionOptions {
  readonly runtime: ToolRuntime;
  readonly store: SessionStore;
  /** Runs one turn of the agent loop: `query()` in the CLI, a script in tests. */
  readonly runQuery: RunQuery;
  readonly model: string;
  /** The runtime's transcript already holds a conversation to go on with (`--continue`): its messages. */
  readonly continued?: readonly MessageParam[];
  /** The session's MCP servers, for `/mcp` (list, login, logout). */
  readonly mcp?: McpSessionControl;
  /** `/compact` (absent: the command says it is not available here). */
  readonly compact?: CompactFn;
}

/** What `/mcp` needs of the MCP layer (an `McpClientManager`). */
export type McpSessionControl = Pick<McpClientManager, 'status' | 'login' | 'logout'>;

/**
 * The modes Shift+Tab walks through, in Claude Code's order: the optional ones after plan — bypass when the session
 * allows it, auto last when a classifier is configured and no settings file disables auto mode.
 */
export function modeCycle(bypassAvailable: boolean, autoAvailable = false): readonly PermissionMode[] {
  return ['default', 'acceptEdits', 'plan', ...(bypassAvailable ? (['bypassPermissions'] as const) : []), ...(autoAvailable ? (['auto'] as const) : [])];
}

/** What the session has cost so far (`/cost`). */
export interface SessionTotals {
  costUsd: number;
  usage: Usage;
  turns: number;
  durationMs: number;
  /** The input side of the last request (input + cache reads + cache writes): what the context held then. */
  lastContextTokens: number;
}

export class Session {
  messages: MessageParam[] = [];
  readonly history: string[] = [];
  readonly totals: SessionTotals = {
    costUsd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    turns: 0,
    durationMs: 0,
    lastContextTokens: 0,
  };
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  /** Work a slash command started (a listing, a compaction): `idle()` waits for it too. */
  private pending: Promise<void> | undefined;
  /** Messages typed while a turn runs: sent together as the next turn when it ends, put back in the prompt by Esc. */
  private queue: string[] = [];
  /**
   * The runtime's transcript holds exactly `messages`: a turn resumes it and sends only the new prompt (the loop
   * appends to the transcript whatever it is given, so a whole conversation sent each turn would be written again).
   */
  transcriptInStep: boolean;
  model: string;

  constructor(readonly options: SessionOptions) {
    this.model = options.model;
    this.messages = [...(options.continued ?? [])];
    this.transcriptInStep = options.continued !== undefined;
  }

  get busy(): boolean {
    return this.controller !== undefined;
  }

  /** Resolves when the current turn (and whatever a command started) has ended. */
  async idle(): Promise<void> {
    while (this.running || this.pending) await Promise.all([this.running, this.pending]);
  }

  /**
   * Resolves when the current turn has ended. Tracked work waits with this, not `idle()`: `idle()` waits for the
   * tracked work itself and would never resolve.
   */
  async turnEnded(): Promise<void> {
    while (this.running) await this.running;
  }

  /** A line from the prompt: a slash command, or a turn. Returns 'exit' when the person asked to leave. */
  submit(text: string): 'exit' | undefined {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    if (this.history.at(-1) !== text) this.history.push(text);
    if (trimmed.startsWith('/')) return this.command(trimmed);
    if (this.busy) {
      // Typed while a turn runs: it waits for the turn to end (Esc interrupts, and takes it back to the prompt).
      this.queue.push(text);
      this.options.store.setQueued(this.queue);
      // A tool that only waits (ScheduleWakeup) stops waiting, so the turn ends and the message is heard sooner.
      this.options.runtime.context.services.notifications?.poke('user-message');
      return undefined;
    }
    this.startTurn(text, false);
    return undefined;
  }

  /**
   * Esc / Ctrl+C: stops the running turn. False when there was nothing to stop, or it was stopped already (so a second
   * Ctrl+C can leave). A running call that must not be cut halfway (its tool's `interruptBehavior` is `block`: a
   * commit, an install) finishes first, and the session says so; leaving (which disposes the runtime) stops it too.
   */
  interrupt(): boolean {
    if (!this.controller || this.controller.signal.aborted) return false;
    const { store } = this.options;
    store.cancelDialogs();
    const waiting = store.getSnapshot().live.filter((i): i is ToolItem => i.kind === 'tool' && i.outcome === undefined && blocksInterrupt(i));
    if (waiting.length > 0) {
      const what = waiting.map((i) => `\`${describe(i)}\``).join(', ');
      const they = waiting.length > 1 ? 'they' : 'it';
      store.notice(`Interrupting: waiting for ${what} to finish — ${they} must not be cut halfway. Ctrl+C leaves without waiting (and stops ${waiting.length > 1 ? 'them' : 'it'}).`, 'warn');
    }
    this.controller.abort(USER_INTERRUPT);
    if (this.queue.length > 0) {
      store.setDraft(this.queue.join('\n'));
      this.queue = [];
      store.setQueued([]);
    }
    return true;
  }

  /** Ctrl+B: the running foreground commands go on as background tasks; their calls return at once. */
  moveToBackground(): string[] {
    const moved = this.options.runtime.backgroundToolUse();
    this.options.store.notice(
      moved.length > 0
        ? `Moved to the background: ${moved.length} running command${moved.length > 1 ? 's' : ''} (the status line lists background tasks).`
        : 'Nothing to move to the background: Ctrl+B moves running Bash commands.',
      moved.length > 0 ? 'info' : 'warn',
    );
    return moved;
  }

  cycleMode(): PermissionMode {
    const { runtime, store } = this.options;
    const cycle = modeCycle(runtime.permissionContext.isBypassPermissionsModeAvailable, runtime.permissionContext.isAutoModeAvailable === true);
    const current = runtime.context.getAppState().toolPermissionContext.mode;
    const next = cycle[(cycle.indexOf(current) + 1) % cycle.length] ?? 'default';
    runtime.setMode(next);
    store.setMode(next);
    return next;
  }

  /** Runs `work` as the session's pending work (notices it makes come in order; `idle()` waits for it). */
  track(work: () => Promise<void>): void {
    const previous = this.pending ?? Promise.resolve();
    const next = previous.then(work).catch((error: unknown) => this.options.store.notice(error instanceof Error ? error.message : String(error), 'error'));
    this.pending = next;
    void next.finally(() => {
      if (this.pending === next) this.pending = undefined;
    });
  }

  /** A turn from a custom command or skill (`/name args`): its text is the prompt. */
  startTurn(text: string, command: boolean): void {
    this.running = this.turn(text, command).finally(() => {
      this.running = undefined;
    });
  }

  private command(line: string): 'exit' | undefined {
    const [name = '', ...rest] = line.slice(1).split(/\s+/);
    if (name === 'exit' || name === 'quit') return 'exit';
    if (runSessionCommand(this, name, rest.filter((w) => w !== ''), line)) return undefined;
    // A custom command or skill (.claude/commands, .claude/skills): its text is this turn's prompt.
    const { store, runtime } = this.options;
    if (commandCatalogOf(runtime)?.names.includes(name)) {
      if (this.busy) store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
      else this.startTurn(line, true);
      return undefined;
    }
    store.notice(`Unknown command /${name}. /help lists the commands.`, 'warn');
    return undefined;
  }

  private async turn(text: string, command = false): Promise<void> {
    const { store, runtime } = this.options;
    const controller = new AbortController();
    this.controller = controller;
    store.addUser(text);
    store.setBusy(true);
    try {
      let message: MessageParam = { role: 'user', content: text };
      let model = this.model;
      if (command) {
        // Its `!` lines and `@` files run now, through the runtime (a prompt that needs a person shows its dialog).
        const expansion = await expandSlashCommand(runtime, text, { signal: controller.signal });
        if (!expansion) throw new Error(`Unknown command ${text.split(/\s/)[0]}.`);
        if (controller.signal.aborted) return;
        message = expansion.message;
        model = expansion.model ?? this.model;
      }
      await this.runTurn(message, model, controller);
    } catch (error) {
      store.notice(error instanceof Error ? error.message : String(error), 'error');
    } finally {
      this.controller = undefined;
      store.setMode(runtime.context.getAppState().toolPermissionContext.mode);
      store.setBusy(false);
      // What was typed meanwhile is the next turn (an interrupt already took it back to the prompt).
      if (this.queue.length > 0) {
        const next = this.queue.join('\n');
        this.queue = [];
        store.setQueued([]);
        queueMicrotask(() => this.startTurn(next, false));
      }
    }
  }

  private async runTurn(message: MessageParam, model: string, controller: AbortController): Promise<void> {
    const { store, runQuery, runtime } = this.options;
    const resume = this.transcriptInStep && this.messages.length > 0 ? runtime.sessionId : undefined;
    const prompt: MessageParam[] = resume ? [message] : [...this.messages, message];
    // A fresh transcript, or one resumed, holds this conversation once the turn has run.
    if (resume !== undefined || this.messages.length === 0) this.transcriptInStep = true;
    for await (const event of runQuery({ prompt, model, signal: controller.signal, ...(resume ? { resume } : {}) })) {
      store.apply(event, (name) => runtime.findTool(name));
      if (event.type === 'assistant') {
        this.totals.lastContextTokens = event.usage.input_tokens + event.usage.cache_read_input_tokens + event.usage.cache_creation_input_tokens;
      }
      if (event.type === 'result') {
        this.messages = [...event.result.messages];
        const { usage, costUsd, turns, durationMs } = event.result;
        this.totals.costUsd += costUsd;
        this.totals.turns += turns;
        this.totals.durationMs += durationMs;
        for (const key of Object.keys(usage) as (keyof Usage)[]) this.totals.usage[key] += usage[key];
      }
    }
  }
}
function blocksInterrupt(item: ToolItem): boolean {
  try {
    return item.tool?.interruptBehavior?.(item.block.input as never) === 'block';
  } catch {
    return false;
  }
}

function describe(item: ToolItem): string {
  try {
    return item.tool?.renderToolUseMessage(item.block.input as never) || item.block.name;
  } catch {
    return item.block.name;
  }
}
