/**
 * The terminal's side of one session (src/session/): what a person typed (the prompt history, messages queued while
 * a turn runs), the turn being run and whether it was interrupted, the mode cycle, the session's totals. The session
 * itself — one loop for the whole conversation, its runtime, its MCP servers — is the `Session` it drives: each line is
 * a message sent to it, each of its events goes to the store. Its slash commands live in session-commands.ts. The Ink
 * app and the plain printer drive it the same way.
 */
import type { QueryEvent, Usage } from '../agent/types.js';
import type { Session } from '../session/index.js';
import type { PermissionMode } from '../tool/permission-types.js';
import { runSessionCommand } from './session-commands.js';
import type { SessionStore, ToolItem } from './session-store.js';

export { describeCommands, describeMcp, describeRules, HELP_TEXT, SESSION_COMMANDS } from './session-commands.js';

export interface TerminalSessionOptions {
  /** The session, started (`await session.start()`): its prompts and questions go to `store`. */
  readonly session: Session;
  readonly store: SessionStore;
}

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
}

/** The turn a line started: it ends at its result. */
interface Turn {
  readonly ended: Promise<void>;
  readonly end: () => void;
  interrupted: boolean;
}

export class TerminalSession {
  readonly history: string[] = [];
  readonly totals: SessionTotals = {
    costUsd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    turns: 0,
    durationMs: 0,
  };
  readonly session: Session;
  readonly store: SessionStore;
  #turn: Turn | undefined;
  /** Work a slash command started (a listing, a compaction): `idle()` waits for it too. */
  #pending: Promise<void> | undefined;
  /** Messages typed while a turn runs: sent together as the next turn when it ends, put back in the prompt by Esc. */
  #queue: string[] = [];
  /** Reads the session's events into the store for as long as the session lasts. */
  readonly #reading: Promise<void>;

  constructor(options: TerminalSessionOptions) {
    this.session = options.session;
    this.store = options.store;
    this.#reading = this.#read();
  }

  get busy(): boolean {
    return this.#turn !== undefined;
  }

  get model(): string {
    return this.session.model;
  }

  /** Resolves when the current turn (and whatever a command started) has ended. */
  async idle(): Promise<void> {
    while (this.#turn || this.#pending) await Promise.all([this.#turn?.ended, this.#pending]);
  }

  /**
   * Resolves when the current turn has ended. Tracked work waits with this, not `idle()`: `idle()` waits for the
   * tracked work itself and would never resolve.
   */
  async turnEnded(): Promise<void> {
    while (this.#turn) await this.#turn.ended;
  }

  /** Resolves once the session has ended (its runtime disposed). */
  ended(): Promise<void> {
    return this.#reading;
  }

  /** A line from the prompt: a slash command, or a turn. Returns 'exit' when the person asked to leave. */
  submit(text: string): 'exit' | undefined {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    this.remember(text);
    if (trimmed.startsWith('/')) return this.#command(trimmed);
    if (this.busy) {
      // Typed while a turn runs: it waits for the turn to end (Esc interrupts, and takes it back to the prompt).
      this.#queue.push(text);
      this.store.setQueued(this.#queue);
      // A tool that only waits (ScheduleWakeup) stops waiting, so the turn ends and the message is heard sooner.
      this.session.wake();
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
    const turn = this.#turn;
    if (!turn || turn.interrupted) return false;
    turn.interrupted = true;
    const { store } = this;
    store.cancelDialogs();
    const waiting = store.getSnapshot().live.filter((i): i is ToolItem => i.kind === 'tool' && i.outcome === undefined && blocksInterrupt(i));
    if (waiting.length > 0) {
      const what = waiting.map((i) => `\`${describe(i)}\``).join(', ');
      const they = waiting.length > 1 ? 'they' : 'it';
      store.notice(`Interrupting: waiting for ${what} to finish — ${they} must not be cut halfway. Ctrl+C leaves without waiting (and stops ${waiting.length > 1 ? 'them' : 'it'}).`, 'warn');
    }
    this.session.interrupt();
    if (this.#queue.length > 0) {
      store.setDraft(this.#queue.join('\n'));
      this.#queue = [];
      store.setQueued([]);
    }
    return true;
  }

  /** Ctrl+B: the running foreground commands go on as background tasks; their calls return at once. */
  moveToBackground(): string[] {
    const moved = this.session.moveToBackground();
    this.store.notice(
      moved.length > 0
        ? `Moved to the background: ${moved.length} running command${moved.length > 1 ? 's' : ''} (the status line lists background tasks).`
        : 'Nothing to move to the background: Ctrl+B moves running Bash commands.',
      moved.length > 0 ? 'info' : 'warn',
    );
    return moved;
  }

  cycleMode(): PermissionMode {
    const permissions = this.session.permissions();
    const cycle = modeCycle(permissions.isBypassPermissionsModeAvailable, permissions.isAutoModeAvailable === true);
    const next = cycle[(cycle.indexOf(permissions.mode) + 1) % cycle.length] ?? 'default';
    this.session.setMode(next);
    this.store.setMode(next);
    return next;
  }

  /** Runs `work` as the session's pending work (notices it makes come in order; `idle()` waits for it). */
  track(work: () => Promise<void>): void {
    const previous = this.#pending ?? Promise.resolve();
    const next = previous.then(work).catch((error: unknown) => this.store.notice(error instanceof Error ? error.message : String(error), 'error'));
    this.#pending = next;
    void next.finally(() => {
      if (this.#pending === next) this.#pending = undefined;
    });
  }

  /**
   * A turn: the line is shown, and sent to the session — a custom command or skill (`/name args`) expanded first (its
   * `!` lines and `@` files run now, through the runtime; a prompt that needs a person shows its dialog).
   */
  startTurn(text: string, command: boolean): void {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const turn: Turn = { ended, end, interrupted: false };
    this.#turn = turn;
    this.store.addUser(text);
    this.store.setBusy(true);
    if (!command) {
      this.session.send(text);
      return;
    }
    void this.session
      .expand(text)
      .then((expansion) => {
        if (!expansion) throw new Error(`Unknown command ${text.split(/\s/)[0]}.`);
        if (turn.interrupted) return this.#endTurn(turn);
        this.session.send(expansion.message.content, { verbatim: true, ...(expansion.model ? { model: expansion.model } : {}) });
      })
      .catch((error: unknown) => {
        this.store.notice(error instanceof Error ? error.message : String(error), 'error');
        this.#endTurn(turn);
      });
  }

  /** Text kept in the prompt history without being sent (the prompt cleared by Esc Esc). */
  remember(text: string): void {
    if (text.trim() !== '' && this.history.at(-1) !== text) this.history.push(text);
  }

  /** A slash command the terminal itself runs (a key such as Esc Esc): it is not something typed, so not in the history. */
  runCommand(line: string): 'exit' | undefined {
    return this.#command(line.trim());
  }

  #command(line: string): 'exit' | undefined {
    const [name = '', ...rest] = line.slice(1).split(/\s+/);
    if (name === 'exit' || name === 'quit') return 'exit';
    if (runSessionCommand(this, name, rest.filter((w) => w !== ''), line)) return undefined;
    // A custom command or skill (.claude/commands, .claude/skills): its text is this turn's prompt.
    if (this.session.isCommand(name)) {
      if (this.busy) this.store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
      else this.startTurn(line, true);
      return undefined;
    }
    this.store.notice(`Unknown command /${name}. /help lists the commands.`, 'warn');
    return undefined;
  }

  /** The session's events, for as long as it lasts: each goes to the store; a result ends the turn. */
  async #read(): Promise<void> {
    try {
      for await (const event of this.session.events()) {
        if (event.type === 'task_ended') continue;
        this.store.apply(event, (name) => this.session.findTool(name));
        if (event.type === 'result') this.#turnResult(event.result);
      }
    } catch (error) {
      this.store.notice(error instanceof Error ? error.message : String(error), 'error');
    } finally {
      if (this.#turn) this.#endTurn(this.#turn);
    }
  }

  #turnResult(result: Extract<QueryEvent, { type: 'result' }>['result']): void {
    const { usage, costUsd, turns, durationMs } = result;
    this.totals.costUsd += costUsd;
    this.totals.turns += turns;
    this.totals.durationMs += durationMs;
    for (const key of Object.keys(usage) as (keyof Usage)[]) this.totals.usage[key] += usage[key];
    if (this.#turn) this.#endTurn(this.#turn);
  }

  #endTurn(turn: Turn): void {
    if (this.#turn !== turn) return;
    this.#turn = undefined;
    this.store.setMode(this.session.mode);
    this.store.setBusy(false);
    turn.end();
    // What was typed meanwhile is the next turn (an interrupt already took it back to the prompt).
    if (this.#queue.length > 0) {
      const next = this.#queue.join('\n');
      this.#queue = [];
      this.store.setQueued([]);
      queueMicrotask(() => this.startTurn(next, false));
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
