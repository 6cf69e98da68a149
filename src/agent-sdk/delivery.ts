/**
 * The Agent SDK's order between messages and callbacks: a tool call's PreToolUse hook (and its `canUseTool`) runs after
 * the program has been handed the assistant message that carries the call, as it does when the messages and the
 * callbacks come over the Claude Code process's pipe in that order. Here the loop runs a call's hooks as soon as its
 * block is complete, so each callback waits until `query()` has handed the program that message — or the session
 * ended, or the callback's own time ran out — and the program's code for the message runs first.
 */
import type { SDKMessage } from './messages.js';

export class Delivery {
  readonly #handed = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();
  #ended = false;

  /** The program was handed `message` (its `next()` resolved with it). */
  handed(message: SDKMessage): void {
    if (message.type !== 'assistant') return;
    const content = message.message.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (block.type !== 'tool_use') continue;
      this.#handed.add(block.id);
      const waiting = this.#waiting.get(block.id);
      if (!waiting) continue;
      this.#waiting.delete(block.id);
      // After the program's own code for the message has run up to its first await.
      setImmediate(() => waiting.forEach((go) => go()));
    }
  }

  /** Resolves once the call's assistant message was handed over (at once if it was, or if the session ended). */
  wait(toolUseId: string | undefined, signal?: AbortSignal): Promise<void> {
    if (toolUseId === undefined || this.#ended || this.#handed.has(toolUseId) || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#waiting.get(toolUseId) ?? [];
      list.push(resolve);
      this.#waiting.set(toolUseId, list);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** The session ended: nothing waits any more. */
  end(): void {
    this.#ended = true;
    for (const list of this.#waiting.values()) list.forEach((go) => go());
    this.#waiting.clear();
  }
}
