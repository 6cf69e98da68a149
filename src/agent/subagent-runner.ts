/**
 * The agent layer's side of the Agent tool: `services.subagents.run()` makes a child runtime of the runtime the
 * Agent call ran in (`runtime.child()`: its own context and file state, the parent's rules and prompt handler, depth
 * + 1) and runs the loop in it. A foreground child's abort is linked to the parent's turn, so an interrupt reaches
 * every level; a background child lives until it ends or the runtime is disposed.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { SubagentRequest, SubagentResult, SubagentRunner } from '../tools/agent/index.js';
import type { FileStateCache } from '../tool/file-state-cache.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { QueryEvent, QueryOptions, QueryResult, ToolRuntime } from './types.js';

export type QueryFn = (options: QueryOptions) => AsyncGenerator<QueryEvent, QueryResult>;

// The runtime a tool call's context belongs to. Contexts are copied freely (per run, per call, by modifiers) and
// each call gets its own abort controller, but a runtime's file-read state is one object for its whole life, and
// every runtime has its own (a child's is a clone).
const runtimes = new WeakMap<FileStateCache, ToolRuntime>();

export function registerRuntimeContext(context: ToolUseContext, runtime: ToolRuntime): void {
  runtimes.set(context.readFileState, runtime);
}

export function runtimeOfContext(context: ToolUseContext): ToolRuntime | undefined {
  return runtimes.get(context.readFileState);
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
        // SubagentStart hooks (matched on the agent type) may add context to the child's first message.
        const start = await child.context.services.hooks?.loop?.subagentStart(
          {
            sessionId: child.sessionId,
            cwd: child.cwd,
            permissionMode: child.permissionContext.mode,
            projectDir: child.permissionContext.projectDir,
            agentId: request.agentId,
            agentType: request.agentType,
          },
          child.context.abortController.signal,
        );
        const extra = start?.additionalContext ?? [];
        const prompt = extra.length > 0 ? `${request.prompt}\n\n<system-reminder>\n${extra.join('\n')}\n</system-reminder>` : request.prompt;
        const generator = deps.query({
          runtime: child,
          client: deps.client,
          prompt,
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
