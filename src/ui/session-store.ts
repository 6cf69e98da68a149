/**
 * The state of an interactive session, without React: what is finished (written once, never redrawn), what is live
 * (streaming text, running tools), the dialogs waiting for the person, the mode and the background tasks. The Ink app
 * and the plain-text printer both read it, so a terminal and a pipe show the same session.
 *
 * Finished items leave the live list in order: a tool that ends before the one above it waits, so the transcript
 * never reorders.
 */
import type { PermissionAnswer, QueryEvent, QuestionAnswer, QuestionRequest, RuntimePermissionRequest } from '../agent/types.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { AnyTool, ToolResultBlockParam, ToolUseBlock, ToolViews } from '../tool/tool.js';
import type { BackgroundTask, Dialog, Item, MenuCommand, SessionSnapshot } from './session-snapshot.js';
import { readTeammateMessage } from '../tool/message-origin.js';

export type { BackgroundTask, Dialog, Item, MenuCommand, SessionSnapshot, ToolItem } from './session-snapshot.js';

type Listener = () => void;

export class SessionStore {
  private finished: Item[] = [];
  private live: Item[] = [];
  private dialogs: Dialog[] = [];
  private tasks: BackgroundTask[] = [];
  private nextId = 1;
  private busy = false;
  /** The last assistant item is still receiving text. */
  private textOpen = false;
  private epoch = 0;
  private queued: readonly string[] = [];
  private draft: { readonly text: string; readonly seq: number } | undefined;
  private commands: readonly MenuCommand[] = [];
  /** Calls whose prompt is open (a prompt may open before the call's line is drawn). */
  private readonly waitingIds = new Set<string>();
  private snapshot: SessionSnapshot;
  private readonly listeners = new Set<Listener>();
  private readonly finishedListeners = new Set<(item: Item) => void>();
  private readonly viewsCache = new Map<AnyTool, ToolViews | undefined>();

  constructor(
    private mode: PermissionMode,
    private model: string,
  ) {
    this.snapshot = this.makeSnapshot();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called once per item, in transcript order, when it is written for good (the plain printer prints it). */
  onFinished(listener: (item: Item) => void): () => void {
    this.finishedListeners.add(listener);
    return () => this.finishedListeners.delete(listener);
  }

  getSnapshot = (): SessionSnapshot => this.snapshot;

  /** Loads every tool's views before the session starts, so drawing never waits on an import. */
  async preloadViews(tools: readonly AnyTool[]): Promise<void> {
    await Promise.all(
      tools.map(async (tool) => {
        try {
          this.viewsCache.set(tool, await tool.loadViews?.());
        } catch {
          this.viewsCache.set(tool, undefined); // the plain-text forms still draw it
        }
      }),
    );
  }

  viewsOf(tool: AnyTool | undefined): ToolViews | undefined {
    return tool ? this.viewsCache.get(tool) : undefined;
  }

  // — what the person does —

  addUser(text: string): void {
    this.push({ kind: 'user', id: this.nextId++, text });
  }

  /** A finished assistant message (a continued conversation's). */
  addAssistant(text: string): void {
    this.push({ kind: 'assistant', id: this.nextId++, text });
  }

  notice(text: string, tone: 'info' | 'error' | 'warn' = 'info'): void {
    this.push({ kind: 'notice', id: this.nextId++, text, tone });
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    if (!busy) this.settleLive();
    this.emit();
  }

  setMode(mode: PermissionMode): void {
    this.mode = mode;
    this.emit();
  }

  setModel(model: string): void {
    this.model = model;
    this.emit();
  }

  setTasks(tasks: readonly BackgroundTask[]): void {
    this.tasks = [...tasks];
    this.emit();
  }

  setQueued(queued: readonly string[]): void {
    this.queued = [...queued];
    this.emit();
  }

  /** Puts `text` in the prompt (replacing what is there). */
  setDraft(text: string): void {
    this.draft = { text, seq: (this.draft?.seq ?? 0) + 1 };
    this.emit();
  }

  setCommands(commands: readonly MenuCommand[]): void {
    this.commands = [...commands];
    this.emit();
  }

  /** A call of a continued conversation, drawn finished from its transcript (no typed output: its result's text). */
  addPastToolCall(block: ToolUseBlock, tool: AnyTool | undefined, result: ToolResultBlockParam | undefined): void {
    const isError = result?.is_error === true;
    const outcome: ToolUseOutcome = {
      toolUseId: block.id,
      toolName: block.name,
      ...(tool ? { tool } : {}),
      result: result ?? { type: 'tool_result', tool_use_id: block.id, content: '(no result in the transcript)', is_error: true },
      isError: isError || result === undefined,
      newMessages: [],
      userNotices: [],
      stage: 'completed',
      durationMs: 0,
      input: (block.input ?? {}) as Record<string, unknown>,
    };
    this.push({ kind: 'tool', id: this.nextId++, block, tool, views: this.viewsOf(tool), progress: [], startedAt: Date.now(), outcome });
  }

  clear(): void {
    this.finished = [];
    this.live = [];
    this.epoch++;
    this.emit();
  }

  // — what the loop reports —

  apply(event: QueryEvent, findTool: (name: string) => AnyTool | undefined): void {
    switch (event.type) {
      case 'text_delta': {
        const last = this.live.at(-1);
        const open = this.textOpen;
        this.textOpen = true;
        if (open && last?.kind === 'assistant') this.live[this.live.length - 1] = { ...last, text: last.text + event.text };
        else this.live.push({ kind: 'assistant', id: this.nextId++, text: event.text });
        break;
      }
      case 'tool_use': {
        const tool = findTool(event.block.name);
        this.closeText();
        this.live.push({
          kind: 'tool',
          id: this.nextId++,
          block: event.block,
          tool,
          views: this.viewsOf(tool),
          progress: [],
          startedAt: Date.now(),
          ...(this.waitingIds.has(event.block.id) ? { waiting: true } : {}),
        });
        break;
      }
      case 'tool_progress': {
        const i = this.toolIndex(event.progress.toolUseID);
        const item = this.live[i];
        if (item?.kind === 'tool') this.live[i] = { ...item, progress: [...item.progress, event.progress.data] };
        break;
      }
      case 'tool_result': {
        const i = this.toolIndex(event.outcome.toolUseId);
        const item = this.live[i];
        if (item?.kind === 'tool') this.live[i] = { ...item, outcome: event.outcome };
        else this.live.push({ kind: 'tool', id: this.nextId++, block: blockOf(event.outcome), tool: event.outcome.tool, views: this.viewsOf(event.outcome.tool), progress: [], startedAt: Date.now(), outcome: event.outcome });
        for (const notice of event.outcome.userNotices) this.live.push({ kind: 'notice', id: this.nextId++, text: notice, tone: 'warn' });
        for (const message of teammateMessagesOf(event.outcome.newMessages)) this.live.push({ kind: 'teammate', id: this.nextId++, ...message });
        break;
      }
      case 'assistant':
        this.closeText();
        break;
      case 'retry':
        this.live.push({ kind: 'notice', id: this.nextId++, text: `API error (${event.error}); retrying in ${Math.round(event.delayMs / 1000)}s (attempt ${event.attempt})`, tone: 'warn' });
        break;
      case 'result':
        this.closeText();
        if (event.result.isError || event.result.stopReason === 'aborted') {
          const text = event.result.stopReason === 'aborted' ? 'Interrupted' : `Stopped: ${event.result.error ?? event.result.stopReason}`;
          this.live.push({ kind: 'notice', id: this.nextId++, text, tone: event.result.stopReason === 'aborted' ? 'warn' : 'error' });
        } else if (event.result.stopReason === 'max_turns') {
          this.live.push({ kind: 'notice', id: this.nextId++, text: `Stopped after ${event.result.turns} turns (max turns)`, tone: 'warn' });
        }
        break;
      default:
        break;
    }
    this.flush();
    this.emit();
  }

  // — dialogs —

  askPermission(request: RuntimePermissionRequest): Promise<PermissionAnswer> {
    this.markWaiting(request.toolUseID, true);
    const answer = this.openDialog<PermissionAnswer>(
      (id, resolve) => ({ kind: 'permission', id, request, views: this.viewsOf(request.tool), resolve }),
      request.signal,
      { behavior: 'deny', message: 'The request was withdrawn.' },
    );
    return answer.finally(() => this.markWaiting(request.toolUseID, false));
  }

  /** The call's line says it waits for the person while its prompt is open; its running time starts after. */
  private markWaiting(toolUseId: string, waiting: boolean): void {
    if (waiting) this.waitingIds.add(toolUseId);
    else this.waitingIds.delete(toolUseId);
    const i = this.toolIndex(toolUseId);
    const item = this.live[i];
    if (item?.kind !== 'tool' || item.outcome !== undefined) return;
    this.live[i] = { ...item, waiting, startedAt: Date.now() };
    this.emit();
  }

  askQuestion(request: QuestionRequest): Promise<QuestionAnswer> {
    return this.openDialog<QuestionAnswer>((id, resolve) => ({ kind: 'question', id, request, resolve }), request.signal, { action: 'cancel' });
  }

  /** Answers every open dialog as withdrawn (an interrupt). */
  cancelDialogs(): void {
    for (const dialog of [...this.dialogs]) {
      if (dialog.kind === 'permission') dialog.resolve({ behavior: 'deny', message: 'The user interrupted the turn.', interrupt: true });
      else dialog.resolve({ action: 'cancel' });
    }
  }

  private openDialog<A>(make: (id: number, resolve: (answer: A) => void) => Dialog, signal: AbortSignal, withdrawn: A): Promise<A> {
    return new Promise<A>((resolveAnswer) => {
      const id = this.nextId++;
      let done = false;
      const resolve = (answer: A) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', onAbort);
        this.dialogs = this.dialogs.filter((d) => d.id !== id);
        this.emit();
        resolveAnswer(answer);
      };
      const onAbort = () => resolve(withdrawn);
      if (signal.aborted) return resolveAnswer(withdrawn);
      signal.addEventListener('abort', onAbort, { once: true });
      this.dialogs = [...this.dialogs, make(id, resolve)];
      this.emit();
    });
  }

  // — internals —

  private push(item: Item): void {
    this.live.push(item);
    this.flush();
    this.emit();
  }

  private toolIndex(toolUseId: string): number {
    for (let i = this.live.length - 1; i >= 0; i--) {
      const item = this.live[i]!;
      if (item.kind === 'tool' && item.block.id === toolUseId) return i;
    }
    return -1;
  }

  /** Text that is followed by a tool call or ends a message is complete: it may be written for good. */
  private closeText(): void {
    this.textOpen = false;
  }

  /** Moves the finished prefix of the live list to `finished`. */
  private flush(): void {
    let n = 0;
    for (const item of this.live) {
      if (!this.isDone(item, n === this.live.length - 1)) break;
      n++;
    }
    if (n === 0) return;
    const done = this.live.splice(0, n);
    // A new array, not a push: <Static> notices new items by the array's identity.
    this.finished = this.finished.concat(done);
    for (const item of done) for (const listener of this.finishedListeners) listener(item);
  }

  private isDone(item: Item, isLast: boolean): boolean {
    if (item.kind === 'tool') return item.outcome !== undefined;
    // The last assistant text may still be streaming; anything after it proves it complete.
    if (item.kind === 'assistant') return !(isLast && this.textOpen);
    return true;
  }

  /** The turn ended: whatever is live is final now (a tool without a result keeps none — the loop gave one each). */
  private settleLive(): void {
    this.textOpen = false;
    this.flush();
  }

  private emit(): void {
    this.snapshot = this.makeSnapshot();
    for (const listener of this.listeners) listener();
  }

  private makeSnapshot(): SessionSnapshot {
    return {
      finished: this.finished,
      live: [...this.live],
      dialogs: this.dialogs,
      busy: this.busy,
      mode: this.mode,
      model: this.model,
      tasks: this.tasks,
      epoch: this.epoch,
      queued: this.queued,
      ...(this.draft ? { draft: this.draft } : {}),
      commands: this.commands,
    };
  }
}

function blockOf(outcome: ToolUseOutcome): ToolUseBlock {
  return { type: 'tool_use', id: outcome.toolUseId, name: outcome.toolName, input: outcome.input ?? {} } as ToolUseBlock;
}

/** The teammates' messages among what came with a tool result (the lead's inbox is drained there). */
function teammateMessagesOf(messages: ToolUseOutcome['newMessages']): { from: string; summary?: string; text: string }[] {
  const out: { from: string; summary?: string; text: string }[] = [];
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    for (const b of blocks) {
      const read = b.type === 'text' ? readTeammateMessage(b.text) : undefined;
      if (read) out.push({ from: read.from, ...(read.summary !== undefined ? { summary: read.summary } : {}), text: read.body });
    }
  }
  return out;
}
