/**
 * The context a runtime keeps between runs, for the agent layer's own modules — the loop, slash commands, compaction,
 * loop telemetry, the sub-agent runner. `ToolRuntime` does not hand it out: the session and the faces use the
 * runtime's verbs (test/one-of-each.test.ts holds them to it: nothing outside src/agent imports this module but
 * tests).
 */
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { ToolRuntime } from './types.js';

/** Where a runtime keeps its context (`Runtime` defines it; a runtime made by hand for a test may too). */
export const RUNTIME_CONTEXT: unique symbol = Symbol('toolgate.runtime.context');

/** The runtime's current context (after every context modifier applied so far). */
export function contextOf(runtime: ToolRuntime): ToolUseContext {
  const context = (runtime as { readonly [RUNTIME_CONTEXT]?: ToolUseContext })[RUNTIME_CONTEXT];
  if (context === undefined) throw new TypeError('this runtime keeps no context of its own (only createToolRuntime() makes one that does)');
  return context;
}
