/**
 * The StreamingToolExecutor starts tools while the model is still streaming its response. `addTool()` is called as
 * each tool_use block finishes; a tool starts at once when `canExecuteTool()` admits it — nothing is running, or it
 * and everything running are concurrency-safe (up to a ceiling, `TOOLGATE_MAX_TOOL_USE_CONCURRENCY` or
 * `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`, default 10).
 * Each tool goes queued → executing → completed → yielded. Progress is handed out as soon as it arrives; results in
 * call order. Context modifiers of serial tools apply at once (the next tool sees them); those of concurrent tools
 * wait until the batch has ended and then apply in call order.
 *
 * Cancellation, three kinds (see abort-reasons.ts): only a failing Bash call that is not read-only cancels the calls
 * issued with it (through a child of the turn's AbortController: the turn goes on), and they are told plainly that
 * it was automatic and not the user; a user interrupt honours each tool's `interruptBehavior`; `discard()` drops
 * everything when the response is abandoned.
 */
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolProgress, ToolUseBlock, Tools } from '../tool/tool.js';
import { createLinkedAbortController, type ToolUseContext } from '../tool/tool-use-context.js';
import {
  abortKindOf,
  linkToolAbortController,
  SIBLING_ERROR,
  STREAMING_FALLBACK,
  syntheticOutcome,
  type AbortKind,
} from './abort-reasons.js';
import { ToolUseBlockError } from './block-snapshot.js';
import { admits, maxToolUseConcurrency } from './concurrency.js';
import { prepareSnapshot, prepareToolUse, withProblem, type PreparedToolUse } from './prepared-tool-use.js';
import { whenToolLoaded } from '../tool/module-load.js';
import { TOOL_ERROR_CLASSES } from './errors.js';
import { OutcomeBuilder } from './outcome.js';
import { redactorFor } from './redaction.js';
import { describeToolCall, printableName } from './messages.js';
import type { ToolUseOutcome } from './outcome.js';
import { runPreparedToolUse, type PipelineOptions } from './pipeline.js';
import { analysisReady } from '../permissions/analysis-ready.js';
import { abortKindFor, defaultCancelsSiblingsOnError, interruptBehaviorOf, raceAbort, safe } from './cancellation.js';

export { defaultCancelsSiblingsOnError };

export type ToolStatus = 'queued' | 'executing' | 'completed' | 'yielded';

export type ExecutorUpdate =
  | { readonly type: 'progress'; readonly toolUseId: string; readonly progress: ToolProgress; readonly newContext: ToolUseContext }
  | { readonly type: 'result'; readonly toolUseId: string; readonly outcome: ToolUseOutcome; readonly newContext: ToolUseContext };

export interface StreamingToolExecutorOptions extends Omit<PipelineOptions, 'onProgress'> {
  /** Most tools running at once (default: `TOOLGATE_MAX_TOOL_USE_CONCURRENCY`, `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY`, else 10). */
  readonly maxConcurrency?: number;
  /** How long a cancelled tool may take to stop before it is answered for (default 3,000 ms). */
  readonly abortGraceMs?: number;
  /**
   * Aborted when everything must stop (the runtime disposed, a termination signal): it ends even a call whose tool
   * blocks user interrupts and that an interrupt already let run on. Never aborted by a user interrupt.
   */
  readonly shutdownSignal?: AbortSignal;
  /** Whether a failed call cancels the calls issued with it (default: a Bash call that is not read-only). */
  readonly cancelsSiblingsOnError?: (tool: AnyTool, input: Record<string, unknown>, outcome: ToolUseOutcome) => boolean;
  /** `false`: the tools get no progress callback, and no `progress` update is made (nobody would read it). */
  readonly progress?: boolean;
}


interface TrackedTool {
  readonly index: number;
  readonly id: string;
  /** Read, looked up and parsed once (prepared-tool-use.ts); the pipeline trusts it. */
  call: PreparedToolUse;
  readonly assistantMessage: AssistantMessage;
  readonly tool: AnyTool | undefined;
  /** The parsed input, when the schema accepted it. */
  parsedInput: Record<string, unknown> | undefined;
  isConcurrencySafe: boolean;
  /** A call whose concurrency answer waits for what its analysis needs (analysis-ready.ts): nothing overtakes it. */
  awaitingAnalysis?: boolean;
  /** A built-in whose module is still loading (registry/lazy-tool.ts): read again once it has; nothing overtakes it. */
  awaitingModule?: boolean;
  /** Asked with the parsed input; a call waiting for its analysis asks again once it is there. */
  interruptBehavior: 'cancel' | 'block';
  status: ToolStatus;
  promise?: Promise<void>;
  outcome?: ToolUseOutcome;
  readonly pendingProgress: ToolProgress[];
}

export class StreamingToolExecutor {
  readonly #tools: TrackedTool[] = [];
  readonly #ids = new Set<string>();
  /**
   * A child of the turn's controller, while tools run: aborting it cancels this response's tools and leaves the turn
   * running. Made when a tool starts and unlinked from the turn's when none runs (a child's listener on the turn's
   * signal would otherwise outlive this executor) — unlinked, not aborted: an abort event to dispatch per run for
   * nothing. A cancelled one stays: the calls that start after a sibling error are cancelled too.
   */
  #sibling: { readonly controller: AbortController; readonly unlink: () => void } | undefined;
  readonly #maxConcurrency: number;
  #context: ToolUseContext;
  #discarded = false;
  #erroredCall: { index: number; description: string } | undefined;
  #queuedModifiers: { index: number; modifier: (context: ToolUseContext) => ToolUseContext }[] = [];
  #waiters: (() => void)[] = [];
  // Bookkeeping that keeps every operation O(1) amortised per tool (a response may carry thousands of calls).
  #executing = 0;
  #executingUnsafe = 0;
  #queueStart = 0;
  #yieldCursor = 0;
  #withProgress = new Set<TrackedTool>();
  #processing = false;
  #processAgain = false;

  constructor(
    private readonly toolDefinitions: Tools,
    private readonly canUseTool: CanUseToolFn,
    toolUseContext: ToolUseContext,
    private readonly options: StreamingToolExecutorOptions = {},
  ) {
    this.#context = toolUseContext;
    this.#maxConcurrency = Math.max(1, Math.floor(options.maxConcurrency ?? maxToolUseConcurrency()));
  }

  /** The context after every context modifier applied so far. */
  getUpdatedContext(): ToolUseContext {
    return this.#context;
  }

  /**
   * Called as each tool_use block finishes streaming; the tool starts now if `canExecuteTool()` admits it. The block is
   * read once (block-snapshot.ts): a kind the client does not answer (text, thinking, server tools) is ignored; one
   * that cannot be answered at all (no usable id) throws `ToolUseBlockError` here and nothing is queued; a repeated id
   * is answered with an `is_error` result and not run (the first block with that id runs). Returns the block's id
   * (`undefined` for a skipped kind).
   */
  addTool(block: ToolUseBlock, assistantMessage: AssistantMessage): string | undefined {
    if (this.#discarded) return undefined;
    const prepared = prepareToolUse(block, this.toolDefinitions, this.options.fallbackTools);
    if (prepared.kind === 'skip') return undefined;
    if (prepared.kind === 'unanswerable') throw new ToolUseBlockError(`this content block cannot be answered with a tool_result: ${prepared.reason}`);
    let call = prepared.call;
    if (this.#ids.has(call.block.id)) {
      call = withProblem(call, `Another tool_use block in this message has the id "${call.block.id}"; ids must be unique, so this one was not run.`, TOOL_ERROR_CLASSES.duplicateId);
    }
    this.#ids.add(call.block.id);
    const tool = call.problem === undefined ? call.tool : undefined;
    const loading = whenToolLoaded(tool);
    if (loading) {
      const tracked: TrackedTool = { awaitingModule: true, index: this.#tools.length, id: call.block.id, call, assistantMessage, tool, parsedInput: undefined, isConcurrencySafe: false, interruptBehavior: 'block', status: 'queued', pendingProgress: [] };
      this.#tools.push(tracked);
      const judge = () => this.#judgeLoaded(tracked);
      void loading.then(judge, judge);
      return call.block.id;
    }
    const parsedInput = tool && call.parsed?.ok ? call.parsed.input : undefined;
    // An unknown tool only produces an error: it blocks nobody. Fail closed: a tool whose check throws runs alone.
    const isConcurrencySafe = tool === undefined ? true : parsedInput !== undefined && safe(() => Boolean(tool.isConcurrencySafe(parsedInput)), false);
    const behaviour = interruptBehaviorOf(tool, parsedInput);
    // Some calls are judged by an analysis that loads on first need (a shell command's parse): answered now it would
    // be "not safe" only because it is not there yet, so the call waits for it (in order) instead of running alone.
    const ready = parsedInput !== undefined && tool !== undefined ? analysisReady(tool, parsedInput) : undefined;
    if (ready) this.#awaitAnalysis(ready);
    this.#tools.push({
      ...(ready ? { awaitingAnalysis: true } : {}),
      index: this.#tools.length,
      id: call.block.id,
      call,
      assistantMessage,
      tool,
      parsedInput,
      isConcurrencySafe,
      interruptBehavior: behaviour,
      status: 'queued',
      pendingProgress: [],
    });
    this.#processQueue();
    return call.block.id;
  }

  /** Admits a tool when nothing runs, or when it and everything running are concurrency-safe, under the ceiling. */
  canExecuteTool(isConcurrencySafe: boolean): boolean {
    return admits(isConcurrencySafe, this.#executing, this.#executingUnsafe, this.#maxConcurrency);
  }

  /** Progress of every tool at once; results in call order, as far as the calls before them have completed. */
  *getCompletedResults(): Generator<ExecutorUpdate, void> {
    if (this.#discarded) return;
    if (this.#withProgress.size > 0) {
      const withProgress = [...this.#withProgress].sort((a, b) => a.index - b.index);
      this.#withProgress.clear();
      for (const tracked of withProgress) {
        while (tracked.pendingProgress.length > 0) {
          const progress = tracked.pendingProgress.shift()!;
          yield { type: 'progress', toolUseId: tracked.id, progress, newContext: this.#context };
        }
      }
    }
    // Results strictly in call order: a call still running holds back the results of the calls after it.
    while (this.#yieldCursor < this.#tools.length) {
      const tracked = this.#tools[this.#yieldCursor]!;
      if (tracked.status !== 'completed' || !tracked.outcome) break;
      tracked.status = 'yielded';
      this.#yieldCursor++;
      yield { type: 'result', toolUseId: tracked.id, outcome: this.#withNotifications(tracked.outcome), newContext: this.#context };
    }
  }

  /** Everything not yet yielded, waiting on tools and progress together (no polling). */
  async *getRemainingResults(): AsyncGenerator<ExecutorUpdate, void> {
    while (!this.#discarded) {
      this.#processQueue();
      // for…of, not `yield*`: a sync generator delegated to from an async one goes through an async-from-sync
      // iterator, a promise a step and one more for its end, even when there is nothing to yield.
      for (const update of this.getCompletedResults()) yield update;
      if (this.#discarded || this.#yieldCursor === this.#tools.length) return;
      if (this.#hasYieldable()) continue;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Streaming fallback: the response is abandoned — running tools are aborted, queued ones never start, nothing is yielded. */
  discard(): void {
    this.#discarded = true;
    this.#sibling?.controller.abort(STREAMING_FALLBACK);
    this.#wake();
  }

  /** The call of a tool whose module has loaded (or failed to: its members then throw, and the call is answered so). */
  #judgeLoaded(tracked: TrackedTool): void {
    tracked.call = prepareSnapshot(tracked.call.block, undefined, this.toolDefinitions, this.options.fallbackTools);
    const parsedInput = tracked.call.parsed?.ok ? tracked.call.parsed.input : undefined;
    tracked.parsedInput = parsedInput;
    tracked.isConcurrencySafe = parsedInput !== undefined && safe(() => Boolean(tracked.tool!.isConcurrencySafe(parsedInput)), false);
    if (tracked.status === 'queued') tracked.interruptBehavior = interruptBehaviorOf(tracked.tool, parsedInput);
    const ready = parsedInput !== undefined ? analysisReady(tracked.tool!, parsedInput) : undefined;
    tracked.awaitingModule = false;
    if (ready) {
      tracked.awaitingAnalysis = true;
      this.#awaitAnalysis(ready);
    }
    this.#processQueue();
    this.#wake();
  }

  #awaitAnalysis(ready: Promise<void>): void {
    void ready.then(() => {
      for (const tracked of this.#tools) {
        // Judged now whatever came of the wait: an analysis that could not load fails closed (the call runs alone).
        if (!tracked.awaitingAnalysis) continue;
        tracked.awaitingAnalysis = false;
        const data = tracked.parsedInput!;
        tracked.isConcurrencySafe = safe(() => Boolean(tracked.tool!.isConcurrencySafe(data)), false);
        if (tracked.status === 'queued') tracked.interruptBehavior = interruptBehaviorOf(tracked.tool, data);
      }
      this.#processQueue();
      this.#wake();
    });
  }

  #processQueue(): void {
    // Completing a tool re-enters here; the outer loop picks up whatever the inner call would have done.
    if (this.#processing) {
      this.#processAgain = true;
      return;
    }
    this.#processing = true;
    try {
      do {
        this.#processAgain = false;
        this.#processQueueOnce();
      } while (this.#processAgain);
    } finally {
      this.#processing = false;
    }
  }

  #processQueueOnce(): void {
    while (this.#queueStart < this.#tools.length && this.#tools[this.#queueStart]!.status !== 'queued') this.#queueStart++;
    for (let i = this.#queueStart; i < this.#tools.length; i++) {
      const tracked = this.#tools[i]!;
      if (tracked.status !== 'queued') continue;
      if (tracked.call.problem !== undefined) {
        const acc = new OutcomeBuilder(tracked.id, tracked.call.block.name, performance.now(), this.options.eventSink);
        this.#complete(tracked, acc.fail('validation', tracked.call.problem, tracked.call.problemClass ?? TOOL_ERROR_CLASSES.invalidBlock));
        continue;
      }
      const kind = this.#abortKind(tracked);
      if (kind) {
        this.#complete(tracked, syntheticOutcome(kind, tracked.id, this.#nameOf(tracked), this.#erroredCall?.description, this.options.eventSink));
        continue;
      }
      if (tracked.awaitingAnalysis || tracked.awaitingModule) break;
      if (this.canExecuteTool(tracked.isConcurrencySafe)) this.#start(tracked);
      else if (!tracked.isConcurrencySafe || this.#executing >= this.#maxConcurrency) break; // nothing may overtake it
    }
  }

  /** Why this tool must not run (or its result must be replaced), if it must not. */
  #abortKind(tracked: TrackedTool): AbortKind | undefined {
    return abortKindFor({ discarded: this.#discarded, erroredIndex: this.#erroredCall?.index, turn: this.#context.abortController.signal }, tracked);
  }

  #start(tracked: TrackedTool): void {
    tracked.status = 'executing';
    this.#executing++;
    if (!tracked.isConcurrencySafe) this.#executingUnsafe++;
    // Its tools listen through one shared listener (linkToolAbortController), so no listener limit needs raising.
    this.#sibling ??= createLinkedAbortController(this.#context.abortController);
    const { controller, dispose } = linkToolAbortController(
      this.#sibling.controller.signal,
      tracked.interruptBehavior,
      this.#context.abortController,
      this.options.shutdownSignal,
    );
    const context: ToolUseContext = { ...this.#context, abortController: controller, toolUseId: tracked.id };
    const run = runPreparedToolUse(tracked.call, tracked.assistantMessage, this.canUseTool, context, {
      ...this.options,
      onProgress:
        this.options.progress === false
          ? undefined
          : (progress) => {
              if (tracked.status !== 'executing') return;
              tracked.pendingProgress.push(progress);
              this.#withProgress.add(tracked);
              this.#wake();
            },
    });
    tracked.promise = this.#settle(tracked, run, controller.signal).then((outcome) => {
      dispose();
      this.#complete(tracked, outcome);
    });
  }

  /**
   * The tool's own outcome — unless it was cancelled first: then, once it has stopped (or the grace period is over),
   * the synthetic answer for the reason, except when it managed to complete successfully anyway.
   */
  async #settle(tracked: TrackedTool, run: Promise<ToolUseOutcome>, signal: AbortSignal): Promise<ToolUseOutcome> {
    const { outcome, aborted } = await raceAbort(run, signal, this.options.abortGraceMs ?? 3_000);
    if (!aborted && outcome) return outcome;
    return this.#cancelled(tracked, outcome);
  }

  #cancelled(tracked: TrackedTool, settled: ToolUseOutcome | undefined): ToolUseOutcome {
    if (settled && settled.stage === 'completed' && !settled.isError) return settled;
    // A call refused at its permission prompt never ran: its refusal (a person's "deny and stop", which is what
    // aborted the run) says more than "interrupted".
    if (settled && settled.stage === 'permission') return settled;
    // The call that failed keeps its own result; only the others get the synthetic one.
    const kind = this.#abortKind(tracked) ?? abortKindOf(this.#sibling?.controller.signal.reason);
    if (settled && this.#erroredCall?.index === tracked.index) return settled;
    // A tool whose result answers the interrupt itself (a command's output so far, marked as cut short) keeps it:
    // the generic answer would throw that output away.
    if (kind === 'user_interrupted' && settled?.stage === 'completed' && settled.interrupted === true) return settled;
    return syntheticOutcome(kind, tracked.id, this.#nameOf(tracked), this.#erroredCall?.description, settled ? undefined : this.options.eventSink);
  }

  #complete(tracked: TrackedTool, outcome: ToolUseOutcome): void {
    if (tracked.status === 'completed' || tracked.status === 'yielded') return;
    if (tracked.status === 'executing') {
      this.#executing--;
      if (!tracked.isConcurrencySafe) this.#executingUnsafe--;
    }
    tracked.status = 'completed';
    tracked.outcome = outcome;
    if (outcome.isError && !this.#erroredCall && tracked.tool && tracked.parsedInput) {
      const rule = this.options.cancelsSiblingsOnError ?? defaultCancelsSiblingsOnError;
      if (safe(() => rule(tracked.tool!, tracked.parsedInput!, outcome), false)) {
        const what = outcome.stage === 'permission' || outcome.stage === 'hook' ? 'was denied' : 'failed';
        this.#erroredCall = { index: tracked.index, description: `${describeToolCall(tracked.tool.name, tracked.parsedInput)} ${what}` };
        (this.#sibling ??= createLinkedAbortController(this.#context.abortController)).controller.abort(SIBLING_ERROR);
      }
    }
    if (outcome.contextModifier) {
      if (tracked.isConcurrencySafe) this.#queuedModifiers.push({ index: tracked.index, modifier: outcome.contextModifier });
      else this.#applyModifier(outcome.contextModifier);
    }
    if (this.#queuedModifiers.length > 0 && this.#executing === 0) {
      // The concurrent batch has ended: its modifiers apply now, in call order, before anything else starts.
      const queued = this.#queuedModifiers.sort((a, b) => a.index - b.index);
      this.#queuedModifiers = [];
      for (const { modifier } of queued) this.#applyModifier(modifier);
    }
    this.#processQueue();
    if (this.#executing === 0 && this.#sibling && !this.#sibling.controller.signal.aborted) {
      // Idle: detached from the turn's controller; the next tool that starts links a fresh one.
      this.#sibling.unlink();
      this.#sibling = undefined;
    }
    this.#wake();
  }


  #applyModifier(modifier: (context: ToolUseContext) => ToolUseContext): void {
    const next = safe(() => modifier(this.#context), undefined);
    // A modifier that throws or returns nothing changes nothing; the turn's abort controller always stays.
    if (next && typeof next === 'object') this.#context = { ...next, abortController: this.#context.abortController };
  }

  #withNotifications(outcome: ToolUseOutcome): ToolUseOutcome {
    const queue = this.#context.services.notifications;
    if (!queue || queue.size === 0) return outcome;
    // Background output (a task's last lines) reaches the model too: redacted as results are.
    const redactor = redactorFor(this.#context);
    const drained = queue.drain();
    return { ...outcome, newMessages: [...outcome.newMessages, ...(redactor ? drained.map((m) => redactor.redactMessage(m)) : drained)] };
  }

  #hasYieldable(): boolean {
    if (this.#withProgress.size > 0) return true;
    return this.#tools[this.#yieldCursor]?.status === 'completed';
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  #nameOf(tracked: TrackedTool): string {
    return tracked.tool?.name ?? printableName(tracked.call.block.name);
  }
}
