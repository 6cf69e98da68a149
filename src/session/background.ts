/**
 * The background tasks a session's own calls started (a Bash command run in the background, or one moved there), and
 * the wait for their ends. A session whose face has no more messages goes on while they run, as the Agent SDK's
 * does: when one ends, its end is told (`task_ended`) and its news is the model's next user turn.
 */
import type { ToolRuntime } from '../agent/types.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { MessageParam } from '../tool/tool.js';
import type { SessionTaskEnd } from './options.js';

/** The task a call left running in the background (its typed output says so), if any. */
export function backgroundTaskOf(outcome: ToolUseOutcome): string | undefined {
  if (outcome.isError || outcome.output === null || typeof outcome.output !== 'object') return undefined;
  const id = (outcome.output as { backgroundTaskId?: unknown }).backgroundTaskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export class BackgroundTasks {
  /** Started by this session's calls and not told ended yet. */
  readonly #running = new Set<string>();

  constructor(private readonly runtime: ToolRuntime) {}

  /** A main-thread call's outcome: a task it left running is this session's to wait for. */
  saw(outcome: ToolUseOutcome): void {
    const id = backgroundTaskOf(outcome);
    if (id !== undefined) this.#running.add(id);
  }

  get any(): boolean {
    return this.#running.size > 0;
  }

  /**
   * Waits for a task of this session to end, or for news while one runs (a Monitor's lines); each end goes to `told`. Returns the news the model gets as its next
   * turn, or undefined once none is running (or `signal` aborts). A task that ends without news (stopped on request)
   * is told and waited past.
   */
  async news(signal: AbortSignal, told: (end: SessionTaskEnd) => void): Promise<MessageParam | undefined> {
    // Teammates at work are the session's to wait for too: the report each sends at its turn's end is news.
    let waitedForTeam = false;
    for (;;) {
      const teammates = this.runtime.teammatesAtWork?.() ?? 0;
      if (teammates > 0) waitedForTeam = true;
      const teamNews = waitedForTeam && this.runtime.pendingNotifications() > 0;
      if ((this.#running.size === 0 && teammates === 0 && !teamNews) || signal.aborted) return undefined;
      let off = () => {};
      // Listening before looking: a task that ends in between is not missed.
      const changed = new Promise<void>((resolve) => {
        const unsubscribe = this.runtime.onTaskEnd(() => resolve());
        // News from a task that still runs (a Monitor's lines) is a turn of its own too.
        const unheard = this.runtime.onNotification(() => resolve());
        const onAbort = () => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        off = () => (unsubscribe(), unheard(), signal.removeEventListener('abort', onAbort));
      });
      const tasks = new Map(this.runtime.tasks().map((t) => [t.id, t] as const));
      const ended = [...this.#running].filter((id) => tasks.get(id)?.status !== 'running');
      if (ended.length === 0 && this.runtime.pendingNotifications() === 0) {
        // The tasks' processes do not hold the event loop (a program that is done must not wait for them), but this
        // session is waiting for them: it holds it until one ends, or a `toolgate -p` would exit in the middle.
        const hold = setInterval(() => undefined, 60_000);
        try {
          await changed;
        } finally {
          clearInterval(hold);
          off();
        }
        continue;
      }
      off();
      for (const id of ended) {
        this.#running.delete(id);
        const task = tasks.get(id);
        told(
          task
            ? { id, status: task.status === 'running' ? 'failed' : task.status, outputFile: task.outputFile, summary: task.headline ?? `Background task ${id} ${task.status}`, endedAt: task.endedAt ?? Date.now() }
            : { id, status: 'failed', outputFile: '', summary: `Background task ${id} is gone`, endedAt: Date.now() },
        );
      }
      const news = this.runtime.takeNotifications();
      if (news.length > 0) return { role: 'user', content: news.flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content)) };
    }
  }
}
