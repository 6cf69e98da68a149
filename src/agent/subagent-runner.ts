/**
 * The agent layer's side of the Agent tool: `services.subagents.run()` makes a child runtime of the runtime the
 * Agent call ran in (`runtime.child()`: its own context and file state, the parent's rules and prompt handler, depth
 * + 1) and runs the loop in it. A foreground child's abort is linked to the parent's turn, so an interrupt reaches
 * every level; a background child lives until it ends or the runtime is disposed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { SubagentRequest, SubagentResult, SubagentRunner } from '../tools/agent/index.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { QueryEvent, QueryOptions, QueryResult, ToolRuntime } from './types.js';

export type QueryFn = (options: QueryOptions) => AsyncGenerator<QueryEvent, QueryResult>;

// The runtime each run's context belongs to, by the run's abort controller (stable for the whole run, unlike the
// context object, which context modifiers replace).
const runtimes = new WeakMap<AbortController, ToolRuntime>();

export function registerRunContext(controller: AbortController, runtime: ToolRuntime): void {
  runtimes.set(controller, runtime);
}

export function runtimeOfContext(context: ToolUseContext): ToolRuntime | undefined {
  return runtimes.get(context.abortController);
}

export interface SubagentRunnerDeps {
  readonly client: Anthropic;
  readonly query: QueryFn;
  /** For a context no run registered (a tool called by hand): the runtime to make children of. */
  readonly fallback?: () => ToolRuntime;
}

export function createSubagentRunner(deps: SubagentRunnerDeps): SubagentRunner {
  return {
    async run(request: SubagentRequest): Promise<SubagentResult> {
      const started = performance.now();
      const parent = runtimeOfContext(request.parent) ?? deps.fallback?.();
      if (!parent) throw new Error('the Agent call did not come from a runtime run, so no sub-agent can be made for it');
      const child = await parent.child({
        agentId: request.agentId,
        agentType: request.agentType,
        tools: request.tools,
        ...(request.mode !== undefined ? { mode: request.mode } : {}),
        isAsync: request.isAsync,
        ...(request.model !== undefined ? { model: request.model } : {}),
        ...(request.isAsync ? {} : { signal: request.parent.abortController.signal }),
      });
      try {
        const model = request.model ?? request.parent.options.mainLoopModel;
        const generator = deps.query({
          runtime: child,
          client: deps.client,
          prompt: request.prompt,
          systemPrompt: request.systemPrompt,
          model,
          signal: child.context.abortController.signal,
        });
        let toolUseCount = 0;
        let result: QueryResult | undefined;
        for (;;) {
          const next = await generator.next();
          if (next.done) {
            result ??= next.value;
            break;
          }
          if (next.value.type === 'tool_result') toolUseCount++;
          else if (next.value.type === 'result') result = next.value.result;
        }
        return {
          text: result.text,
          toolUseCount,
          durationMs: performance.now() - started,
          usage: { ...result.usage },
          isError: result.isError,
          stopReason: result.stopReason,
          ...(result.error !== undefined ? { error: result.error } : {}),
        };
      } finally {
        await child.dispose();
      }
    },
  };
}
