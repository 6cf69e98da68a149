/**
 * Whole messages of the one encoder (encoder.ts) that one loop event makes by itself, without the encoder's per-turn
 * state: the init message, an assistant message per content block, a retry notice, a hook's start or answer, a
 * sub-agent's end, and a turn's result (with the synthetic assistant message of an API failure). The encoder decides
 * when each goes out and counts what the result reports (turns, refused calls); nothing but the encoder calls these.
 */
import type { SubagentLoopEvent, QueryEvent, QueryResult } from '../agent/types.js';
import { apiMessage, errorCategory, errorSubtype, errorText, fullUsage, modelUsage, terminalReason, totalTokens } from './encoder-fields.js';
import type { SDKAssistantMessage, SDKMessage, SDKPermissionDenial, SDKResultMessage, SDKSystemMessage, UUID } from './messages.js';
import type { SessionFacts } from './encoder.js';
import { FAST_MODE } from './encoder-figures.js';
import { randomUUID } from '../tool/crypto.js';
import { TOOLGATE_VERSION } from '../tool/version.js';

/** toolgate's version, reported where the Agent SDK reports Claude Code's (`claude_code_version`). */

/** The fields every message carries: its own uuid and the session's id. */
export type MessageBase = { uuid: UUID; session_id: string };

/**
 * What a toolgate session is, in the words of Claude Code's init line (docs/cli.md "stream-json keys"): it advertises
 * none of Claude Code's control-protocol capabilities, sends no analytics and no product feedback, is not a session
 * Anthropic serves (`-p` lines only), has no fast mode (off, as a `-p` run without the SDK's opt-in reports it), no per-turn effort and no
 * `ultrathink` keyword, and no focus view.
 */
const INIT_CONSTANTS = {
  analytics_disabled: true,
  product_feedback_disabled: true,
  ...FAST_MODE,
  per_turn_effort_active: false,
  ultrathink_available: false,
  ultrathink_typed_raises: false,
  view_mode: 'default',
} as const;

export function initMessage(event: Extract<QueryEvent, { type: 'init' }>, facts: SessionFacts, base: MessageBase, cli: boolean): SDKSystemMessage {
  return {
    type: 'system',
    subtype: 'init',
    cwd: event.cwd,
    // Claude Code 2.1.332 prints both (test/parity/cli/stream-json.json); a session starts where it was opened.
    original_cwd: event.cwd,
    additional_directories: [...(facts.additionalDirectories ?? [])],
    session_id: base.session_id,
    // The Agent SDK lists the Agent tool under its former name.
    tools: event.tools.map((t) => (t === 'Agent' ? 'Task' : t)),
    mcp_servers: facts.mcpServers(),
    model: event.model,
    permissionMode: facts.permissionMode(),
    slash_commands: [...event.slashCommands],
    apiKeySource: facts.apiKeySource,
    claude_code_version: TOOLGATE_VERSION,
    output_style: 'default',
    agents: facts.agents(),
    skills: [...event.skills],
    plugins: facts.plugins?.() ?? [],
    ...(facts.betas && facts.betas.length > 0 ? { betas: [...facts.betas] } : {}),
    capabilities: [],
    ...INIT_CONSTANTS,
    // `claude -p`'s line only (the Agent SDK's init has neither key).
    ...(cli ? { served_by_anthropic: false } : {}),
    ...(cli && facts.sandboxEnabled !== undefined ? { sandbox_enabled: facts.sandboxEnabled } : {}),
    uuid: base.uuid,
  };
}

export function assistantMessage(event: Extract<QueryEvent, { type: 'assistant_block' }>, parent: string | null, base: MessageBase, extra: Record<string, unknown> = {}): SDKAssistantMessage {
  return {
    type: 'assistant',
    message: apiMessage(event.messageId, event.model, [event.block], event.usage),
    parent_tool_use_id: parent,
    ...base,
    timestamp: new Date().toISOString(),
    ...extra,
    ...(event.requestId !== undefined ? { request_id: event.requestId } : {}),
  };
}

export function retryMessage(event: Extract<QueryEvent, { type: 'retry' }>, base: MessageBase): SDKMessage {
  return {
    type: 'system',
    subtype: 'api_retry',
    attempt: event.attempt,
    max_retries: event.maxRetries ?? 8,
    retry_delay_ms: Math.round(event.delayMs),
    error_status: event.status ?? null,
    error: errorCategory(event.status, event.errorType),
    ...base,
  };
}

/** A command or http hook started or answered. */
export function hookMessage(h: Extract<QueryEvent, { type: 'hook' }>['hook'], base: () => MessageBase): SDKMessage {
  if (h.phase === 'started') return { type: 'system', subtype: 'hook_started', hook_id: h.id, hook_name: h.name, hook_event: h.event, ...base() };
  return {
    type: 'system',
    subtype: 'hook_response',
    hook_id: h.id,
    hook_name: h.name,
    hook_event: h.event,
    output: h.stdout + h.stderr,
    stdout: h.stdout,
    stderr: h.stderr,
    ...(h.exitCode !== undefined ? { exit_code: h.exitCode } : {}),
    outcome: h.outcome,
    ...base(),
  };
}

/** A sub-agent ended: its task's update and notification (`outputFile`: where its conversation is kept). */
export function subagentEndMessages(event: Extract<QueryEvent, { type: 'subagent' }>, update: Extract<SubagentLoopEvent, { phase: 'end' }>, outputFile: string, base: () => MessageBase): SDKMessage[] {
  const failed = update.result.isError;
  const usage = { total_tokens: totalTokens(update.result.usage), tool_uses: update.toolUses, duration_ms: Math.round(update.durationMs) };
  return [
    { type: 'system', subtype: 'task_updated', task_id: event.agentId, patch: { status: failed ? 'failed' : 'completed', end_time: Date.now(), ...(update.result.error ? { error: update.result.error } : {}) }, ...base() },
    {
      type: 'system',
      subtype: 'task_notification',
      task_id: event.agentId,
      tool_use_id: event.parentToolUseId,
      status: failed ? 'failed' : 'completed',
      output_file: outputFile,
      summary: update.result.text || update.result.error || '',
      usage,
      ...base(),
    },
  ];
}

/** What the encoder counted for a turn's result. */
export interface TurnCounts {
  /** `num_turns` as Claude Code counts it. */
  readonly numTurns: number;
  readonly denials: readonly SDKPermissionDenial[];
  readonly maxOutputTokens: number;
  /** The keys beyond the loop's result (encoder-figures.ts): sub-agents, the result's number… */
  readonly figures?: Record<string, unknown>;
  /** The turn's times (a success that got its answers only). */
  readonly times?: Record<string, number>;
}

/** A turn's result message, and before it, after an API failure, the synthetic assistant message with its error. */
export function resultMessages(result: QueryResult, counts: TurnCounts, base: () => MessageBase): { readonly apiError?: SDKAssistantMessage; readonly result: SDKResultMessage } {
  const failure = result.apiFailure;
  const common = {
    type: 'result' as const,
    duration_ms: Math.round(result.durationMs),
    duration_api_ms: Math.round(result.apiDurationMs ?? 0),
    num_turns: counts.numTurns,
    stop_reason: result.apiStopReason ?? null,
    total_cost_usd: result.totalCostUsd ?? result.costUsd,
    usage: fullUsage(result.usage),
    modelUsage: modelUsage(result.modelUsage ?? {}, counts.maxOutputTokens),
    permission_denials: [...counts.denials],
    terminal_reason: terminalReason(result),
    ...counts.figures,
  };
  if (failure !== undefined) {
    // An API failure: a synthetic assistant message with the error, then a success-shaped result marked as an error.
    const text = `API Error: ${[failure.status, failure.message].filter((x) => x !== undefined).join(' ')}`;
    const apiError = { api_error_status: failure.status ?? null, ...(failure.type !== undefined ? { api_error_type: failure.type } : {}) };
    const message = {
      type: 'assistant',
      message: { ...apiMessage(randomUUID(), '<synthetic>', [{ type: 'text', text }], undefined, 'stop_sequence'), container: null, diagnostics: null, stop_details: null } as SDKAssistantMessage['message'],
      parent_tool_use_id: null,
      ...base(),
      timestamp: new Date().toISOString(),
      error: errorCategory(failure.status, failure.type),
      is_api_error_message: true,
      ...apiError,
    } as SDKAssistantMessage;
    return { apiError: message, result: { ...common, subtype: 'success', is_error: true, result: text, stop_reason: 'stop_sequence', ...apiError, ...base() } as SDKResultMessage };
  }
  const subtype = errorSubtype(result);
  if (subtype === 'success') {
    const success: SDKResultMessage = {
      ...common,
      subtype,
      is_error: false,
      api_error_status: null,
      ...counts.times,
      result: result.structuredOutput !== undefined ? JSON.stringify(result.structuredOutput) : result.text,
      ...(result.structuredOutput !== undefined ? { structured_output: result.structuredOutput } : {}),
      ...base(),
    };
    return { result: success };
  }
  return { result: { ...common, subtype, is_error: true, errors: [errorText(result)], ...base() } };
}
