/**
 * The request of each turn: the tool list from the runtime (byte-identical while the pool is unchanged), the system
 * prompt and the conversation, with prompt-cache breakpoints — the API takes at most four — on the last built-in tool
 * (the seeds' breakpoint: an MCP server or an extra tool coming or going does not re-bill the built-ins), the last
 * tool, the system prompt and the last message. Deferred tools are not part of the cached prefix, so no breakpoint
 * goes on one. Also the loop's request options: `tool_choice`, thinking, and the betas (the request then goes
 * through the SDK's beta endpoint, and tools send their `input_examples` when that beta is on).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { normalizeMessagesForAPI } from '../execution/messages.js';
import type { APIToolDefinition, MessageParam } from '../tool/tool.js';
import type { ModelRequest } from './model-step.js';
import type { ToolRuntime } from './types.js';

/** The model `query()` and the runtime's side calls use when none is given: the one table's default. */
export { DEFAULT_MODEL } from '../tool/models.js';
/** `max_tokens` of each model request when `QueryOptions.maxTokens` is not given. */
export const DEFAULT_MAX_TOKENS = 32_000;
/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1_024;

/** The effort levels of the Messages API's `output_config.effort`. */
export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
/** The beta Claude Code sends with `output_config.effort` (recorded from the Agent SDK 0.3.328's requests). */
export const EFFORT_BETA = 'effort-2025-11-24';
const EPHEMERAL = { type: 'ephemeral' } as const;

export interface NextRequestOptions {
  readonly runtime: ToolRuntime;
  readonly model: string;
  readonly system: string;
  readonly messages: readonly MessageParam[];
  readonly maxTokens?: number;
  readonly thinking?: Anthropic.Messages.ThinkingConfigParam;
  /** See `QueryOptions.toolChoice`: a choice that forces a tool applies to the first turn only. */
  readonly toolChoice?: Anthropic.Messages.ToolChoice;
  readonly betas?: readonly string[];
  readonly effort?: Effort;
  /** 1 for the first request of a `query()`. */
  readonly turn?: number;
  /** `false`: no prompt-cache breakpoint anywhere (`DISABLE_PROMPT_CACHING`). Default true. */
  readonly promptCaching?: boolean;
}

export async function nextRequest(options: NextRequestOptions): Promise<ModelRequest> {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  checkThinking(options.thinking, maxTokens);
  const given = [...(options.betas ?? []), ...(options.effort && !options.betas?.includes(EFFORT_BETA) ? [EFFORT_BETA] : [])];
  const betas = given.length > 0 ? given : undefined;
  const definitions = await options.runtime.definitions({ model: options.model, ...(betas ? { betas } : {}) });
  const toolChoice = toolChoiceFor(options, definitions);
  const caching = options.promptCaching !== false;
  const messages = normalizeMessagesForAPI(options.messages);
  return {
    model: options.model,
    max_tokens: maxTokens,
    system: [{ type: 'text', text: options.system, ...(caching ? { cache_control: EPHEMERAL } : {}) }],
    ...(definitions.length > 0 ? { tools: caching ? withToolBreakpoints(definitions, options.runtime) : [...definitions] } : {}),
    messages: options.runtime.applyBudget(caching ? withLastMessageBreakpoint(messages) : messages.map((m) => withoutBreakpoints(roleAndContent(m)))),
    ...(options.thinking ? { thinking: options.thinking } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(options.effort ? { output_config: { effort: options.effort } } : {}),
    ...(betas ? { betas } : {}),
  };
}

/**
 * The tools with their breakpoints, per definitions array: the runtime hands out the same array while its pool is
 * unchanged, so every turn of every session on it reuses one list instead of building it again (each request gets
 * its own copy of the list, as the definitions themselves are shared already).
 */
const breakpointed = new WeakMap<readonly APIToolDefinition[], { readonly tools: ToolRuntime['tools']; readonly builtIns: number; readonly result: APIToolDefinition[] }>();

/** Breakpoints after the last built-in and after the last tool (one when they are the same), never on a deferred one. */
function withToolBreakpoints(definitions: readonly APIToolDefinition[], runtime: ToolRuntime): APIToolDefinition[] {
  const { tools, builtInToolCount } = runtime;
  const hit = breakpointed.get(definitions);
  if (hit && hit.tools === tools && hit.builtIns === builtInToolCount) return [...hit.result];
  const builtIns = new Set(tools.slice(0, builtInToolCount).map((t) => t.name));
  const inPrefix = (d: APIToolDefinition) => d.defer_loading !== true;
  const last = findLastIndex(definitions, inPrefix);
  const lastBuiltIn = findLastIndex(definitions, (d) => inPrefix(d) && builtIns.has(d.name));
  const result = definitions.map((d, i) => (i === last || i === lastBuiltIn ? { ...d, cache_control: EPHEMERAL } : d));
  breakpointed.set(definitions, { tools, builtIns: builtInToolCount, result });
  return [...result];
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

const thinkingOn = (thinking: Anthropic.Messages.ThinkingConfigParam | undefined) => thinking !== undefined && thinking.type !== 'disabled';

/** The API's own rules for a thinking budget, said before a request is spent on them. */
function checkThinking(thinking: Anthropic.Messages.ThinkingConfigParam | undefined, maxTokens: number): void {
  if (thinking?.type !== 'enabled') return;
  const budget = thinking.budget_tokens;
  if (!Number.isInteger(budget) || budget < MIN_THINKING_BUDGET) {
    throw new Error(`thinking.budget_tokens must be a whole number of at least ${MIN_THINKING_BUDGET} (got ${budget})`);
  }
  if (budget >= maxTokens) throw new Error(`thinking.budget_tokens (${budget}) must be less than maxTokens (${maxTokens})`);
}

/**
 * The turn's `tool_choice`. `auto` and `none` hold for every turn; `any` and a named tool force a call, so they hold
 * for the first turn only — forced on every turn, the model could never give its final answer and the loop would run
 * to `maxTurns` — and later turns are `auto` (with the same `disable_parallel_tool_use`).
 */
function toolChoiceFor(options: NextRequestOptions, definitions: readonly APIToolDefinition[]): Anthropic.Messages.ToolChoice | undefined {
  const choice = options.toolChoice;
  if (choice === undefined) return undefined;
  if (choice.type === 'auto' || choice.type === 'none') return choice;
  if (thinkingOn(options.thinking)) {
    throw new Error(`tool_choice "${choice.type}" forces a tool call, which the API does not allow with extended thinking: use "auto" or "none", or turn thinking off`);
  }
  if (choice.type === 'tool' && !definitions.some((d) => d.name === choice.name)) {
    throw new Error(`tool_choice names the tool "${choice.name}", which is not among the tools of this request`);
  }
  if (choice.type === 'any' && definitions.length === 0) throw new Error('tool_choice "any" needs at least one tool, and this request has none');
  if ((options.turn ?? 1) > 1) {
    return { type: 'auto', ...(choice.disable_parallel_tool_use !== undefined ? { disable_parallel_tool_use: choice.disable_parallel_tool_use } : {}) };
  }
  return choice;
}

/**
 * The breakpoint on the last message, and none elsewhere: a conversation handed in (a resumed transcript, an
 * embedder's messages) may carry its own, and five would be more than the API takes. Each message goes as its role
 * and content only: the API refuses any other field (`messages.1.id: Extra inputs are not permitted`), and
 * transcripts written before the model step kept the response id off the message carry one.
 */
function withLastMessageBreakpoint(messages: readonly MessageParam[]): MessageParam[] {
  const out = messages.map((m) => withoutBreakpoints(roleAndContent(m)));
  const last = out.at(-1);
  if (!last) return out;
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
  // Thinking blocks cannot carry a breakpoint: mark the last block that can.
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    content[i] = { ...block, cache_control: EPHEMERAL } as typeof block;
    break;
  }
  out[out.length - 1] = { ...last, content } as MessageParam;
  return out;
}

function roleAndContent(message: MessageParam): MessageParam {
  for (const key in message) if (key !== 'role' && key !== 'content') return { role: message.role, content: message.content } as MessageParam;
  return message;
}

function withoutBreakpoints(message: MessageParam): MessageParam {
  if (typeof message.content === 'string' || !message.content.some(hasBreakpoint)) return message;
  return { ...message, content: message.content.map((block) => (hasBreakpoint(block) ? stripBreakpoint(block) : block)) } as MessageParam;
}

type Block = Exclude<MessageParam['content'], string>[number];

function hasBreakpoint(block: Block): boolean {
  if ('cache_control' in block && block.cache_control != null) return true;
  return block.type === 'tool_result' && Array.isArray(block.content) && block.content.some((b) => 'cache_control' in b && b.cache_control != null);
}

function stripBreakpoint(block: Block): Block {
  const { cache_control: _drop, ...rest } = block as Block & { cache_control?: unknown };
  if (rest.type === 'tool_result' && Array.isArray(rest.content)) {
    return { ...rest, content: rest.content.map((b) => ('cache_control' in b ? (({ cache_control: _c, ...r }) => r)(b) : b)) } as Block;
  }
  return rest as Block;
}
