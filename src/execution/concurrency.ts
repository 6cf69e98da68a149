/**
 * The executor's concurrency rule, in one place: a call is admitted when nothing runs, or when it and everything
 * running are concurrency-safe, under a ceiling (`TOOLGATE_MAX_TOOL_USE_CONCURRENCY`, default 10). The
 * StreamingToolExecutor applies it to the calls of one message; `ConcurrencyGate` applies it to calls that arrive as
 * separate requests (the MCP server's `tools/call`), first come, first served, so a stream of reads cannot starve a
 * write.
 */
import { analysisReady } from '../permissions/analysis-ready.js';
import type { PreparedToolUse } from './prepared-tool-use.js';

export const DEFAULT_MAX_TOOL_USE_CONCURRENCY = 10;

/**
 * The ceiling from the environment — `TOOLGATE_MAX_TOOL_USE_CONCURRENCY`, else Claude Code's
 * `CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY` — or the default when neither is a positive integer.
 */
export function maxToolUseConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  for (const name of ['TOOLGATE_MAX_TOOL_USE_CONCURRENCY', 'CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY']) {
    const n = Number(env[name]);
    if (env[name] !== undefined && Number.isInteger(n) && n > 0) return n;
  }
  return DEFAULT_MAX_TOOL_USE_CONCURRENCY;
}

/** Whether a call (concurrency-safe or not) may start while `executing` calls run, `executingUnsafe` of them not safe. */
export function admits(isConcurrencySafe: boolean, executing: number, executingUnsafe: number, maxConcurrency: number): boolean {
  if (executing === 0) return true;
  return isConcurrencySafe && executingUnsafe === 0 && executing < maxConcurrency;
}

/**
 * A prepared call's concurrency answer, as the executor gives it: once what its analysis needs has loaded (a shell
 * command's parse), and failing closed (an unknown tool blocks nobody; a call that did not parse, or whose check
 * throws, runs alone).
 */
export async function isCallConcurrencySafe(call: PreparedToolUse): Promise<boolean> {
  const { tool, parsed } = call;
  if (call.problem !== undefined || tool === undefined) return true;
  if (!parsed?.ok) return false;
  const ready = analysisReady(tool, parsed.input);
  if (ready) await ready;
  try {
    return Boolean(tool.isConcurrencySafe(parsed.input));
  } catch {
    return false;
  }
}

interface Waiter {
  readonly exclusive: boolean;
  readonly start: () => void;
}

export class ConcurrencyGate {
  private shared = 0;
  private exclusiveRunning = false;
  private readonly queue: Waiter[] = [];

  constructor(private readonly maxConcurrency: number = maxToolUseConcurrency()) {}

  /** Resolves with a release function once the call may start, or `undefined` if `signal` aborts first. */
  enter(exclusive: boolean, signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        exclusive,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          if (exclusive) this.exclusiveRunning = true;
          else this.shared++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            if (exclusive) this.exclusiveRunning = false;
            else this.shared--;
            this.drain();
          });
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i !== -1) this.queue.splice(i, 1);
        resolve(undefined);
        this.drain();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.drain();
    });
  }

  private drain(): void {
    // First come, first served: the head waits until the executor's rule admits it, and nothing overtakes it.
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const running = this.shared + (this.exclusiveRunning ? 1 : 0);
      if (!admits(!next.exclusive, running, this.exclusiveRunning ? 1 : 0, this.maxConcurrency)) return;
      this.queue.shift();
      next.start();
    }
  }
}
