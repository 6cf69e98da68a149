/**
 * One interactive session, without a screen: the conversation, the prompt history, the running turn and its abort
 * controller, the slash commands, the mode cycle. The Ink app and the plain printer drive it the same way.
 */
import { commandCatalogOf, expandSlashCommand, listSlashCommands, type SlashCommandInfo } from '../agent/slash-commands.js';
import type { QueryEvent, ToolRuntime } from '../agent/types.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import type { McpClientManager, McpServerStatus } from '../mcp/manager.js';
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
  /** The session's MCP servers, for `/mcp` (list, login, logout). */
  readonly mcp?: McpSessionControl;
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

export const HELP_TEXT = [
  'Type a request and press Enter. Alt+Enter or a trailing \\ adds a line; pasted text keeps its lines.',
  '',
  '  /help          this text',
  '  /permissions   the permission rules in effect and the files they come from',
  '  /model [name]  show or change the model',
  '  /skills        the skills and custom commands of this session',
  '  /mcp           MCP servers and their state; /mcp login NAME, /mcp logout NAME for OAuth',
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
  /** A listing being read for /help or /skills (they read the skills' files: asynchronous). */
  private listing: Promise<void> | undefined;
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
    return Promise.all([this.running, this.listing]).then(() => undefined);
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
    const cycle = modeCycle(runtime.permissionContext.isBypassPermissionsModeAvailable, runtime.permissionContext.isAutoModeAvailable === true);
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
        // The session's own commands, then the custom commands and skills a person can type.
        this.notice(async () => {
          const typed = (await listSlashCommands(runtime)).filter((c) => c.userInvocable);
          return typed.length === 0 ? HELP_TEXT : `${HELP_TEXT}\n\n${describeCommands(typed)}`;
        });
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
      case 'skills':
        this.notice(async () => describeCommands(await listSlashCommands(runtime)));
        return undefined;
      case 'mcp':
        void this.mcpCommand(rest.filter((w) => w !== ''));
        return undefined;
      default:
        // A custom command or skill (.claude/commands, .claude/skills): its text is this turn's prompt.
        if (name !== undefined && commandCatalogOf(runtime)?.names.includes(name)) {
          if (this.busy) {
            store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
            return undefined;
          }
          this.running = this.turn(line, true).finally(() => {
            this.running = undefined;
          });
          return undefined;
        }
        store.notice(`Unknown command /${name}. /help lists the commands.`, 'warn');
        return undefined;
    }
  }

  /** A notice whose text takes a moment to make; notices show in the order they were asked for. */
  private notice(make: () => Promise<string>): void {
    const { store } = this.options;
    const previous = this.listing ?? Promise.resolve();
    const next = previous.then(make).then(
      (text) => store.notice(text),
      (error: unknown) => store.notice(error instanceof Error ? error.message : String(error), 'error'),
    );
    this.listing = next;
    void next.finally(() => {
      if (this.listing === next) this.listing = undefined;
    });
  }

  /** `/mcp`: the servers and their state; `/mcp login NAME` (URL shown, browser opened when there is one); `/mcp logout NAME`. */
  private async mcpCommand(args: readonly string[]): Promise<void> {
    const { store, runtime, mcp } = this.options;
    if (!mcp) {
      store.notice('No MCP servers configured (.mcp.json, ~/.claude.json, settings mcpServers, --mcp-config).');
      return;
    }
    const [verb, name] = args;
    try {
      if (verb === undefined) {
        store.notice(describeMcp(await mcp.status()));
      } else if ((verb === 'login' || verb === 'logout') && name) {
        let done: string;
        if (verb === 'logout') {
          done = (await mcp.logout(name)) ? `Logged out of MCP server "${name}".` : `MCP server "${name}" had no stored login.`;
        } else {
          store.notice(`Logging in to MCP server "${name}"…`);
          const result = await mcp.login(name, {
            onAuthorizationUrl: (url) => store.notice(`Open this URL in a browser to log in to "${name}" (opened for you when there is a desktop):\n  ${url}`),
          });
          done = result.status === 'not-required' ? `MCP server "${name}" did not ask for a login.` : `Logged in to MCP server "${name}" (${result.tools} tools).`;
        }
        // The pool is read again so the server's tools (or their absence) hold from the next turn.
        await runtime.refreshTools();
        store.notice(done);
      } else {
        store.notice('Usage: /mcp, /mcp login NAME, /mcp logout NAME', 'warn');
      }
    } catch (error) {
      store.notice(error instanceof Error ? error.message : String(error), 'error');
    }
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
    }
  }

  private async runTurn(message: MessageParam, model: string, controller: AbortController): Promise<void> {
    const { store, runQuery, runtime } = this.options;
    const resume = this.transcriptInStep && this.messages.length > 0 ? runtime.sessionId : undefined;
    const prompt: MessageParam[] = resume ? [message] : [...this.messages, message];
    // A fresh transcript, or one resumed, holds this conversation once the turn has run.
    if (!this.cleared && (resume !== undefined || this.messages.length === 0)) this.transcriptInStep = true;
    for await (const event of runQuery({ prompt, model, signal: controller.signal, ...(resume ? { resume } : {}) })) {
      store.apply(event, (name) => runtime.findTool(name));
      if (event.type === 'result') this.messages = [...event.result.messages];
    }
  }
}

/** `/skills`: each skill and custom command with where it comes from and what it does. */
export function describeCommands(all: readonly SlashCommandInfo[]): string {
  if (all.length === 0) return 'No skills or custom commands (.claude/skills/<name>/SKILL.md, .claude/commands/*.md).';
  const sections: string[] = [];
  for (const kind of ['skill', 'command'] as const) {
    const some = all.filter((c) => c.kind === kind);
    if (some.length === 0) continue;
    const lines = some.map((c) => {
      const flags = [c.source, c.userInvocable ? '' : 'model only', c.modelInvocable ? '' : 'user only'].filter(Boolean).join(', ');
      return `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  (${flags})${c.description ? ` — ${c.description}` : ''}`;
    });
    sections.push([kind === 'skill' ? 'Skills:' : 'Custom commands:', ...lines].join('\n'));
  }
  return sections.join('\n\n');
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

const MCP_STATE: Record<McpServerStatus['state'], string> = {
  connected: 'connected',
  failed: 'failed',
  'needs-login': 'needs login',
  'pending-approval': 'needs approval',
  rejected: 'disabled',
  'not-started': 'not started',
};

/** `/mcp`: one line per server, its state and login, the error when it has one. */
export function describeMcp(status: readonly McpServerStatus[]): string {
  if (status.length === 0) return 'No MCP servers configured.';
  const lines = status.map((s) => {
    const login = s.oauth ? (s.oauth.loggedIn ? ', OAuth: logged in' : '') : '';
    const error = s.error ? `\n    ${s.error.split('\n')[0]}` : '';
    return `  ${s.name} [${s.scope}, ${s.type}] — ${MCP_STATE[s.state]}${login}${s.tools.length > 0 ? `, ${s.tools.length} tools` : ''}${error}`;
  });
  return ['MCP servers:', ...lines, '', '/mcp login NAME to log in to a server that asks for OAuth, /mcp logout NAME to forget it.'].join('\n');
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
