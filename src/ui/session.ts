/**
 * One interactive session, without a screen: the conversation, the prompt history, the running turn and its abort
 * controller, the slash commands, the mode cycle. The Ink app and the plain printer drive it the same way.
 */
import type { QueryEvent, ToolRuntime } from '../agent/types.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import { formatPermissionRule } from '../permissions/permission-rule.js';
import type { PermissionMode, PermissionRule } from '../tool/permission-types.js';
import type { MessageParam } from '../tool/tool.js';
import type { SessionStore, ToolItem } from './session-store.js';

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

export interface SessionOptions {
  readonly runtime: ToolRuntime;
  readonly store: SessionStore;
  /** Runs one turn of the agent loop: `query()` in the CLI, a script in tests. */
  readonly runQuery: RunQuery;
  readonly model: string;
  /** The runtime's transcript already holds a conversation to go on with (`--continue`): its messages. */
  readonly continued?: readonly MessageParam[];
}

/** The modes Shift+Tab walks through (bypass only when the session allows it). */
export function modeCycle(bypassAvailable: boolean): readonly PermissionMode[] {
  return bypassAvailable ? ['default', 'acceptEdits', 'plan', 'bypassPermissions'] : ['default', 'acceptEdits', 'plan'];
}

export const HELP_TEXT = [
  'Type a request and press Enter. Alt+Enter or a trailing \\ adds a line; pasted text keeps its lines.',
  '',
  '  /help          this text',
  '  /permissions   the permission rules in effect and the files they come from',
  '  /model [name]  show or change the model',
  '  /clear         forget the conversation and clear the screen',
  '  /exit          leave',
  '',
  '  Esc, Ctrl+C    interrupt the running turn (tools that must finish, finish)',
  '  Ctrl+B         move the running Bash commands to the background',
  '  Ctrl+C twice, Ctrl+D on an empty prompt   exit',
  '  Shift+Tab      cycle the permission mode',
  '  ↑/↓            prompt history',
].join('\n');

export class Session {
  private messages: MessageParam[] = [];
  readonly history: string[] = [];
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  /**
   * The runtime's transcript holds exactly `messages`: a turn resumes it and sends only the new prompt (the loop
   * appends to the transcript whatever it is given, so a whole conversation sent each turn would be written again).
   * False for good after /clear: the file still holds the old conversation, so turns send the conversation whole.
   */
  private transcriptInStep: boolean;
  private cleared = false;
  model: string;

  constructor(private readonly options: SessionOptions) {
    this.model = options.model;
    this.messages = [...(options.continued ?? [])];
    this.transcriptInStep = options.continued !== undefined;
  }

  get busy(): boolean {
    return this.controller !== undefined;
  }

  /** Resolves when the current turn (if any) has ended. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** A line from the prompt: a slash command, or a turn. Returns 'exit' when the person asked to leave. */
  submit(text: string): 'exit' | undefined {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    if (this.history.at(-1) !== text) this.history.push(text);
    if (trimmed.startsWith('/')) return this.command(trimmed);
    if (this.busy) {
      this.options.store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
      return undefined;
    }
    this.running = this.turn(text).finally(() => {
      this.running = undefined;
    });
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
    const cycle = modeCycle(runtime.permissionContext.isBypassPermissionsModeAvailable);
    const current = runtime.context.getAppState().toolPermissionContext.mode;
    const next = cycle[(cycle.indexOf(current) + 1) % cycle.length] ?? 'default';
    runtime.setMode(next);
    store.setMode(next);
    return next;
  }

  private command(line: string): 'exit' | undefined {
    const { store, runtime } = this.options;
    const [name, ...rest] = line.slice(1).split(/\s+/);
    switch (name) {
      case 'help':
        store.notice(HELP_TEXT);
        return undefined;
      case 'exit':
      case 'quit':
        return 'exit';
      case 'clear':
        if (this.busy) this.interrupt();
        this.messages = [];
        this.cleared = true;
        this.transcriptInStep = false;
        store.clear();
        store.notice('Conversation cleared.');
        return undefined;
      case 'model':
        if (rest.length > 0 && rest[0]) {
          this.model = rest[0];
          store.setModel(this.model);
          store.notice(`Model: ${this.model} (from the next turn)`);
        } else store.notice(`Model: ${this.model}`);
        return undefined;
      case 'permissions':
        store.notice(describeRules(runtime));
        return undefined;
      default:
        store.notice(`Unknown command /${name}. /help lists the commands.`, 'warn');
        return undefined;
    }
  }

  private async turn(text: string): Promise<void> {
    const { store, runQuery, runtime } = this.options;
    const controller = new AbortController();
    this.controller = controller;
    store.addUser(text);
    store.setBusy(true);
    const resume = this.transcriptInStep && this.messages.length > 0 ? runtime.sessionId : undefined;
    const prompt: MessageParam[] = resume ? [{ role: 'user', content: text }] : [...this.messages, { role: 'user', content: text }];
    // A fresh transcript, or one resumed, holds this conversation once the turn has run.
    if (!this.cleared && (resume !== undefined || this.messages.length === 0)) this.transcriptInStep = true;
    try {
      for await (const event of runQuery({ prompt, model: this.model, signal: controller.signal, ...(resume ? { resume } : {}) })) {
        store.apply(event, (name) => runtime.findTool(name));
        if (event.type === 'result') this.messages = [...event.result.messages];
      }
    } catch (error) {
      store.notice(error instanceof Error ? error.message : String(error), 'error');
    } finally {
      this.controller = undefined;
      store.setMode(runtime.context.getAppState().toolPermissionContext.mode);
      store.setBusy(false);
    }
  }
}

/** `/permissions`: the mode, then allow / ask / deny rules, each with the file it was read from. */
export function describeRules(runtime: ToolRuntime): string {
  const ctx = runtime.context.getAppState().toolPermissionContext;
  const lines = [`Mode: ${ctx.mode}`];
  const group = (title: string, rules: readonly PermissionRule[]) => {
    lines.push('', `${title}:`);
    if (rules.length === 0) lines.push('  (none)');
    for (const rule of rules) {
      const from = rule.sourceFile && rule.sourceFile !== rule.source ? `${rule.source}, ${rule.sourceFile}` : rule.source;
      lines.push(`  ${formatPermissionRule(rule.ruleValue)}  (${from})`);
    }
  };
  group('Allow', ctx.alwaysAllowRules as readonly PermissionRule[]);
  group('Ask', ctx.alwaysAskRules as readonly PermissionRule[]);
  group('Deny', ctx.alwaysDenyRules as readonly PermissionRule[]);
  return lines.join('\n');
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
