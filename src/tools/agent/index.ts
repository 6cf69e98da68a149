/**
 * Agent (alias Task): runs a sub-agent through `services.subagents` and returns its final report, tool count,
 * duration and usage, with its condensed transcript (its calls and words, not their results) as the call's
 * `newMessages`. This file decides what the child gets — never more than the parent has:
 * - tools: the parent's pool minus the ones no sub-agent gets (AskUserQuestion, plan-mode tools), minus Agent at the
 *   depth limit, minus the definition's `disallowedTools`, intersected with its `tools`; a background child keeps
 *   only the tools that declare themselves `asyncSafe`; none left → an error;
 * - mode: the definition's `permissionMode` only where it is within the parent's (bypassPermissions > auto >
 *   acceptEdits > default > plan, dontAsk: permissions/mode-order.ts), whatever the definition's source; rules and
 *   grants are the parent's own;
 * - prompts: the runtime sends a foreground child's permission prompts to the one top-level handler (bubble); a
 *   background child's are denied with the rule that would allow them (`shouldAvoidPermissionPrompts`).
 * Several Agent calls in one message run in parallel (concurrency-safe) up to a cap of running sub-agents; a
 * background one returns at once and runs as a task of the shared registry (background.ts).
 */
import { MODEL_ALIASES, resolveModel } from '../../tool/models.js';
import * as z from 'zod';
import { isModeWithin } from '../../permissions/mode-order.js';
import { buildTool } from '../../tool/build-tool.js';
import { toolMatchesName } from '../../tool/find-tool.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import type { AnyTool, ValidationResult } from '../../tool/tool.js';
import type { ToolServices, ToolUseContext } from '../../tool/tool-use-context.js';
import type { AgentDefinition } from './agent-definitions.js';
import { agentDefinitionsFor, agentToolPrompt } from './definitions-for.js';

export { agentDefinitionsFor, reloadAgentDefinitions, type SessionAgentDefinitions } from './definitions-for.js';
import { AGENT_TOOL_NAME } from './prompt.js';
import { AgentLog } from './agent-log.js';
import { launchBackgroundAgent } from './background.js';
import { launchTeammate } from './teammate.js';
import { currentTeam, isLead, teammateNameProblem } from '../shared/team.js';
import { agentProgressReporter, formatTokens, type AgentProgress } from './progress.js';
import type { SubagentEvent, SubagentResult, SubagentUsage } from './subagent-runner.js';
import { randomUUID } from '../../tool/crypto.js';

export type { SubagentEvent, SubagentRequest, SubagentResult, SubagentRunner, SubagentUsage } from './subagent-runner.js';
export type { AgentCallSummary, AgentProgress } from './progress.js';
export { AGENT_TOOL_NAME };
export const MAX_SUBAGENT_DEPTH = 3;
export const MAX_CONCURRENT_SUBAGENTS = 20;
/** Tools a sub-agent never gets: they need the person in front of the main thread, or move the session's directory. */
export const SUBAGENT_EXCLUDED_TOOLS: ReadonlySet<string> = new Set(['AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'EnterWorktree', 'ExitWorktree']);

/** `sonnet`, `opus`, `haiku` → the model ids toolgate sends: the one table (src/tool/models.ts), re-exported. */
export { MODEL_ALIASES };

export const agentInputSchema = z.strictObject({
  description: z.string().min(1).describe('A short (3-5 words) description of the task'),
  prompt: z.string().min(1).describe('The task for the agent, with everything it needs to know'),
  subagent_type: z.string().optional().describe('The agent type to use (default general-purpose)'),
  model: z.enum(['sonnet', 'opus', 'haiku']).optional().describe('Model for this agent; overrides its definition'),
  run_in_background: z.boolean().optional().describe('Run it in the background; you are notified when it finishes'),
  name: z.string().optional().describe('A name for the agent: it runs as a teammate in the background, addressable with SendMessage({to: name})'),
  team_name: z.string().optional().describe('Deprecated; ignored. The session has one team'),
});
export type AgentInput = z.infer<typeof agentInputSchema>;

export type AgentOutput =
  | {
      status: 'completed';
      agentId: string;
      agentType: string;
      content: { type: 'text'; text: string }[];
      totalToolUseCount: number;
      totalDurationMs: number;
      totalTokens: number;
      usage: SubagentUsage;
      isError: boolean;
    }
  | {
      status: 'async_launched';
      agentId: string;
      agentType: string;
      description: string;
      prompt: string;
      /** Its progress lines, then its final report (TaskOutput and Read show them). */
      outputFile: string;
      /** A teammate's name (the call named it): SendMessage reaches it. */
      teammate?: string;
    };




/**
 * The child's mode: the definition's where it is within the parent's (permissions/mode-order.ts), else the parent's
 * (`undefined`). The child's runtime holds it to that live as well (agent/child-context.ts).
 */
export function childMode(parent: PermissionMode, requested: PermissionMode | undefined): PermissionMode | undefined {
  if (requested === undefined || requested === parent) return undefined;
  return isModeWithin(requested, parent) ? requested : undefined;
}

const bareName = (entry: string) => entry.replace(/\(.*\)$/, '').trim();

/**
 * The filter over the parent's pool that makes the child's pool. A background child (`isAsync`) gets only the tools
 * that declare `asyncSafe` — a trait, so an MCP tool or an embedder's tool gets the same treatment for the same
 * declaration.
 */
export function subagentToolFilter(definition: AgentDefinition, childDepth: number, isAsync = false): (tool: AnyTool) => boolean {
  const allow = definition.tools?.map(bareName);
  const all = allow === undefined || allow.includes('*');
  const deny = new Set(definition.disallowedTools?.map(bareName) ?? []);
  const matches = (names: Iterable<string>, tool: AnyTool) => {
    for (const n of names) if (toolMatchesName(tool, n)) return true;
    return false;
  };
  return (tool) => {
    if (SUBAGENT_EXCLUDED_TOOLS.has(tool.name)) return false;
    if (tool.name === AGENT_TOOL_NAME && childDepth >= MAX_SUBAGENT_DEPTH) return false;
    if (isAsync && tool.asyncSafe !== true) return false;
    if (matches(deny, tool)) return false;
    return all || matches(allow!, tool);
  };
}

const running = new WeakMap<ToolServices, { count: number }>();

function counterOf(services: ToolServices): { count: number } {
  let c = running.get(services);
  if (!c) running.set(services, (c = { count: 0 }));
  return c;
}

function resolveDefinition(input: AgentInput, context: ToolUseContext): AgentDefinition | undefined {
  const type = input.subagent_type ?? 'general-purpose';
  return agentDefinitionsFor(context).find((d) => d.agentType === type);
}

function check(input: AgentInput, context: ToolUseContext): ValidationResult & { definition?: AgentDefinition } {
  if (!context.services.subagents) {
    return { result: false, message: 'Sub-agents are unavailable in this session: the runtime has no model client to run them with.', errorCode: 1 };
  }
  if (context.agentDepth >= MAX_SUBAGENT_DEPTH) {
    return { result: false, message: `Sub-agents cannot be nested more than ${MAX_SUBAGENT_DEPTH} levels deep; do this task yourself.`, errorCode: 2 };
  }
  const definition = resolveDefinition(input, context);
  if (!definition) {
    const known = agentDefinitionsFor(context).map((d) => d.agentType).join(', ');
    return { result: false, message: `Unknown agent type "${input.subagent_type}". Available: ${known}.`, errorCode: 3 };
  }
  if (input.name !== undefined) {
    if (!isLead(context)) return { result: false, message: 'Only the lead (the main conversation) starts teammates; do not name this agent, or do the work yourself.', errorCode: 5 };
    const problem = teammateNameProblem(currentTeam(context), input.name);
    if (problem) return { result: false, message: problem, errorCode: 6 };
  }
  const isAsync = input.run_in_background === true || input.name !== undefined;
  const tools = context.options.tools.filter(subagentToolFilter(definition, context.agentDepth + 1, isAsync));
  if (tools.length === 0) {
    const why = isAsync ? 'in the background (its tools/disallowedTools and the tools a background agent may use leave none of yours)' : '(its tools/disallowedTools leave none of yours)';
    return { result: false, message: `The agent "${definition.agentType}" would have no tools ${why}; it was not started.`, errorCode: 4 };
  }
  return { result: true, definition };
}

function totalTokens(u: SubagentUsage): number {
  return u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

function completed(agentId: string, agentType: string, r: SubagentResult): AgentOutput {
  const text = r.text || (r.error ? `The sub-agent stopped with an error: ${r.error}` : '(the sub-agent returned no text)');
  return {
    status: 'completed',
    agentId,
    agentType,
    content: [{ type: 'text', text }],
    totalToolUseCount: r.toolUseCount,
    totalDurationMs: r.durationMs,
    totalTokens: totalTokens(r.usage),
    usage: r.usage,
    isError: r.isError,
  };
}

function summaryLine(o: Extract<AgentOutput, { status: 'completed' }>): string {
  return `agentId: ${o.agentId} · ${o.totalToolUseCount} tool uses · ${o.totalTokens} tokens · ${(o.totalDurationMs / 1000).toFixed(1)} s`;
}

/** For a person: what the finished call did, without the id. */
export function doneLine(o: Extract<AgentOutput, { status: 'completed' }>): string {
  const uses = `${o.totalToolUseCount} tool ${o.totalToolUseCount === 1 ? 'use' : 'uses'}`;
  return `${o.isError ? 'Failed' : 'Done'} (${uses} · ${formatTokens(o.totalTokens)} · ${(o.totalDurationMs / 1000).toFixed(1)}s)`;
}

export const AgentTool = buildTool<typeof agentInputSchema, AgentOutput, AgentProgress>({
  name: AGENT_TOOL_NAME,
  aliases: ['Task'],
  searchHint: 'subagent delegate parallel background research task',
  inputSchema: agentInputSchema,
  maxResultSizeChars: 100_000,
  permissionTraits: { kind: 'other', contentField: 'subagent_type' },
  async prompt(options) {
    return agentToolPrompt(options);
  },
  // Starting one changes nothing by itself; each of its tool calls is checked as it runs.
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => `${input.subagent_type ?? 'general-purpose'}: ${input.description}`,
  async validateInput(input, context) {
    const { result, ...rest } = check(input, context);
    return result ? { result } : (rest as Exclude<ValidationResult, { result: true }>);
  },
  async call(input, context, _canUseTool, _parentMessage, onProgress) {
    const verdict = check(input, context);
    if (!verdict.result) throw new Error(verdict.message);
    const definition = verdict.definition!;
    const counter = counterOf(context.services);
    if (counter.count >= MAX_CONCURRENT_SUBAGENTS) throw new Error(`Concurrent subagent limit reached (${MAX_CONCURRENT_SUBAGENTS} running); wait for some to finish.`);
    const agentId = `agent-${input.name ? `${input.name.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32)}-` : ''}${randomUUID().slice(0, 8)}`;
    const requestedModel = input.model ?? (definition.model && definition.model !== 'inherit' ? definition.model : undefined);
    // A named agent is a teammate: it runs beside the lead, in the background.
    const isAsync = input.run_in_background === true || input.name !== undefined;
    const request = {
      parent: context,
      agentId,
      agentType: definition.agentType,
      description: input.description,
      prompt: input.prompt,
      systemPrompt: definition.systemPrompt,
      model: requestedModel ? resolveModel(requestedModel) : undefined,
      tools: subagentToolFilter(definition, context.agentDepth + 1, isAsync),
      mode: childMode(context.getAppState().toolPermissionContext.mode, definition.permissionMode),
      isAsync,
    };
    counter.count++;
    if (isAsync) {
      const settled = () => counter.count--;
      const { outputFile } = input.name !== undefined ? launchTeammate(context, input.name, request, settled) : launchBackgroundAgent(context, request, settled);
      return {
        data: { status: 'async_launched', agentId, agentType: definition.agentType, description: input.description, prompt: input.prompt, outputFile, ...(input.name !== undefined ? { teammate: input.name } : {}) },
      };
    }
    // Progress belongs to the call (a UI draws it); the log keeps the transcript that reaches the parent model.
    const log = new AgentLog();
    const progress = onProgress ? agentProgressReporter({ agentId, description: input.description, toolUseID: context.toolUseId ?? '' }, onProgress) : undefined;
    const onEvent = (event: SubagentEvent) => {
      log.record(event);
      progress?.(event);
    };
    const result = await context.services.subagents!.run({ ...request, onEvent }).finally(() => counter.count--);
    const transcript = log.transcript(result.text);
    return {
      data: completed(agentId, definition.agentType, result),
      ...(transcript !== ''
        ? { newMessages: [{ role: 'assistant' as const, content: [{ type: 'text' as const, text: `The sub-agent ${agentId} ("${input.description}") as it worked — its tool calls and words, not their results; its report is the Agent result above:\n${transcript}` }] }] }
        : {}),
    };
  },
  mapToolResultToToolResultBlockParam(data, toolUseId) {
    if (data.status === 'async_launched' && data.teammate !== undefined) {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: `The teammate "${data.teammate}" (task ID: ${data.agentId}) is working in the background; its progress is written to: ${data.outputFile}. Each time it ends a turn its words reach you as a teammate message; SendMessage (to: "${data.teammate}") gives it more work, TaskStop or TeamDelete ends it. It cannot ask for permissions: calls that would need a person's approval are denied.`,
      };
    }
    if (data.status === 'async_launched') {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: `The agent ${data.agentId} is running in the background (task ID: ${data.agentId}); its progress is written to: ${data.outputFile}. You will be notified when it finishes, with its report; do not wait for it. TaskOutput shows its progress, TaskStop stops it. It cannot ask for permissions: calls that would need a person's approval are denied, and you will be told which.`,
      };
    }
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: [
        { type: 'text', text: data.content[0]?.text ?? '' },
        { type: 'text', text: summaryLine(data) },
      ],
      ...(data.isError ? { is_error: true } : {}),
    };
  },
  renderToolUseMessage: (input) => `${input.subagent_type ?? 'general-purpose'}: ${input.description ?? ''}`,
  renderToolResultMessage: (output) =>
    output.status === 'async_launched' ? (output.teammate !== undefined ? `Teammate ${output.teammate} working as ${output.agentId}` : `Running in the background as ${output.agentId}`) : doneLine(output),
  loadViews: () => import('./render.js').then((m) => m.agentViews),
});
