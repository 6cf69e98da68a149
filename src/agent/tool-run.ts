/**
 * One run: the tool_use blocks of one assistant message, handed over one by one (`add`, at each block's
 * `content_block_stop`) to a `StreamingToolExecutor`, which starts each at once when it may. Events are progress as
 * it happens and results in call order; `done` carries the user message with one tool_result per tool_use, the
 * conversation budget applied (a later result may have pushed an earlier one of the same message out to disk).
 */
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import { ToolUseBlockError } from '../execution/block-snapshot.js';
import { toolResultsMessage } from '../execution/messages.js';
import { toolResultText } from '../tool/tool-result.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import { StreamingToolExecutor, type StreamingToolExecutorOptions } from '../execution/streaming-tool-executor.js';
import type { AssistantMessage, CanUseToolFn, MessageParam, ToolResultBlockParam, ToolUseBlock, Tools } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { RunEvent, RunResult, ToolRunHandle } from './types.js';

export interface ToolRunInit {
  readonly tools: Tools;
  readonly canUseTool: CanUseToolFn;
  /** The context of this run (its own abort controller, a child of the runtime's). */
  readonly context: ToolUseContext;
  readonly assistantMessage: AssistantMessage;
  readonly executorOptions: StreamingToolExecutorOptions;
  /** Called once: with the context after every modifier when the run completed, `undefined` when it was dropped. */
  readonly onSettled: (context: ToolUseContext | undefined, run: ToolRun) => void;
  /** Called for each block added (so a permission answer with `interrupt` can find the run). */
  readonly onAdd?: (toolUseId: string, run: ToolRun) => void;
}

export class ToolRunError extends Error {
  override readonly name = 'ToolRunError';
}

export class ToolRun implements ToolRunHandle {
  readonly #init: ToolRunInit;
  readonly #executor: StreamingToolExecutor;
  readonly ids: string[] = [];
  #finished = false;
  #discarded = false;
  #settled = false;
  #iterating = false;
  #wake: (() => void) | undefined;

  constructor(init: ToolRunInit) {
    this.#init = init;
    this.#executor = new StreamingToolExecutor(init.tools, init.canUseTool, init.context, init.executorOptions);
  }

  /** Whether someone iterates `events()` (a run nobody listens to cannot answer for its calls). */
  get listening(): boolean {
    return this.#iterating;
  }

  get abortController(): AbortController {
    return this.#init.context.abortController;
  }

  add(block: ToolUseBlock): void {
    if (this.#finished) throw new ToolRunError('add() after finish(): this run takes no more tool_use blocks');
    if (this.#discarded) return;
    // Read once, by the executor (block-snapshot.ts): text and thinking blocks are skipped, a block without a usable
    // id throws. The call starts now when the executor admits it: the loop calls this at the block's
    // content_block_stop; a permission prompt it raises is answered later, when the run below is registered.
    let id: string | undefined;
    try {
      id = this.#executor.addTool(block, this.#init.assistantMessage);
    } catch (error) {
      if (error instanceof ToolUseBlockError) throw new ToolUseBlockError(`add(): ${error.message}`);
      throw error;
    }
    if (id === undefined) return;
    this.ids.push(id);
    this.#init.onAdd?.(id, this);
    this.#poke();
  }

  finish(): void {
    this.#finished = true;
    this.#poke();
  }

  discard(): void {
    if (this.#discarded) return;
    this.#discarded = true;
    this.#executor.discard();
    this.#poke();
    this.#settle(undefined);
  }

  async *events(): AsyncGenerator<RunEvent> {
    if (this.#iterating) throw new ToolRunError('events() of a run can be iterated once');
    this.#iterating = true;
    const outcomes: ToolUseOutcome[] = [];
    let completed = false;
    try {
      for (;;) {
        for await (const update of this.#executor.getRemainingResults()) {
          if (this.#discarded) return;
          if (update.type === 'progress') yield { type: 'progress', progress: update.progress };
          else {
            outcomes.push(update.outcome);
            yield { type: 'result', outcome: update.outcome };
          }
        }
        if (this.#discarded) return;
        // Blocks added (and finish() called) since that pass ended are seen here, not by a wake-up that came before
        // anyone waited for it: a block added meanwhile is looked for again, and the run ends only with every one of
        // its blocks answered.
        if (outcomes.length < this.ids.length) continue;
        if (this.#finished) break;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
      const result = this.#result(outcomes);
      completed = true;
      this.#settle(this.#executor.getUpdatedContext());
      yield { type: 'done', result };
    } finally {
      // A consumer that stops listening abandons the run: running tools are stopped, nothing is kept.
      if (!completed) this.discard();
    }
  }

  #result(outcomes: readonly ToolUseOutcome[]): RunResult {
    const budget = this.#executor.getUpdatedContext().contentReplacementState;
    const current = outcomes.map((o) => {
      const replacement = budget?.replacementFor?.(o.toolUseId);
      if (replacement === undefined || replacement === o.result.content) return o;
      return { ...o, result: { ...o.result, content: replacement } as ToolResultBlockParam };
    });
    // The Messages API takes one tool_result per tool_use id: a repeated id's error goes after them, as text.
    const seen = new Set<string>();
    const results: ToolResultBlockParam[] = [];
    const repeated: MessageParam[] = [];
    for (const o of current) {
      if (!seen.has(o.toolUseId)) {
        seen.add(o.toolUseId);
        results.push(o.result);
      } else repeated.push({ role: 'user', content: toolResultText(o.result) });
    }
    const newMessages = [...current.flatMap((o) => o.newMessages), ...repeated];
    // Built on first read: the agent loop builds its own (with the model step's answers in call order) and never
    // reads this one, so the message is built once on either path.
    let message: RunResult['message'] | undefined;
    const signal = this.#init.context.abortController.signal;
    const interrupted = signal.aborted && signal.reason === USER_INTERRUPT;
    return {
      get message() {
        return (message ??= toolResultsMessage(results, newMessages) as RunResult['message']);
      },
      results,
      outcomes: current,
      newMessages,
      ...(interrupted ? { interrupted } : {}),
    };
  }

  #settle(context: ToolUseContext | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#init.onSettled(context, this);
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
