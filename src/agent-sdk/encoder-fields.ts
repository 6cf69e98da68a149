/**
 * The field values of the Agent SDK's messages that the encoder (encoder.ts) derives from the loop's results: result
 * subtypes and terminal reasons, error categories, the API message and usage shapes.
 */
import type { ContentBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages.js';
import type { ModelUsageTotals, QueryResult, Usage } from '../agent/types.js';
import type { ModelUsage, NonNullableUsage, SDKAssistantMessage, SDKAssistantMessageError, SDKResultMessage, TerminalReason } from './messages.js';

export function errorSubtype(result: QueryResult): SDKResultMessage['subtype'] {
  switch (result.stopReason) {
    case 'max_turns':
      return 'error_max_turns';
    case 'max_budget':
      return 'error_max_budget_usd';
    case 'error':
    case 'aborted':
      return 'error_during_execution';
    default:
      return result.isError ? 'error_during_execution' : 'success';
  }
}

export function errorText(result: QueryResult): string {
  if (result.stopReason === 'max_turns') return `Reached maximum number of turns (${result.turns})`;
  if (result.stopReason === 'aborted') return 'The turn was interrupted';
  return result.error ?? `stopped: ${result.stopReason}`;
}

export function terminalReason(result: QueryResult): TerminalReason {
  switch (result.stopReason) {
    case 'max_turns':
      return 'max_turns';
    case 'max_budget':
      return 'budget_exhausted';
    case 'aborted':
      return result.apiStopReason === 'tool_use' ? 'aborted_tools' : 'aborted_streaming';
    case 'error':
      return result.apiFailure ? 'api_error' : 'model_error';
    case 'blocked':
      return 'hook_stopped';
    default:
      return 'completed';
  }
}

export function errorCategory(status: number | undefined, type: string | undefined): SDKAssistantMessageError {
  if (type === 'overloaded_error' || status === 529) return 'overloaded';
  if (type === 'rate_limit_error' || status === 429) return 'rate_limit';
  if (type === 'authentication_error' || status === 401) return 'authentication_failed';
  if (type === 'not_found_error' || status === 404) return 'model_not_found';
  if (type === 'invalid_request_error' || status === 400) return 'invalid_request';
  if (status !== undefined && status >= 500) return 'server_error';
  return 'unknown';
}

export function apiMessage(id: string, model: string, content: ContentBlockParam[], usage: Usage | undefined, stopReason: string | null = null): SDKAssistantMessage['message'] {
  const u = usage ?? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? '' : null,
    usage: { input_tokens: u.input_tokens, output_tokens: u.output_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens, cache_read_input_tokens: u.cache_read_input_tokens },
    context_management: null,
  } as unknown as SDKAssistantMessage['message'];
}

export function fullUsage(u: Usage): NonNullableUsage {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    output_tokens: u.output_tokens,
    output_tokens_details: { thinking_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    inference_geo: '',
    iterations: [],
    speed: 'standard',
    fallback_credit: null,
  } as unknown as NonNullableUsage;
}

export function modelUsage(totals: Readonly<Record<string, ModelUsageTotals>>, maxOutputTokens: number): Record<string, ModelUsage> {
  const out: Record<string, ModelUsage> = {};
  for (const [model, t] of Object.entries(totals)) {
    out[model] = {
      inputTokens: t.usage.input_tokens,
      outputTokens: t.usage.output_tokens,
      cacheReadInputTokens: t.usage.cache_read_input_tokens,
      cacheCreationInputTokens: t.usage.cache_creation_input_tokens,
      webSearchRequests: 0,
      costUSD: t.costUsd,
      contextWindow: 200_000,
      maxOutputTokens,
    };
  }
  return out;
}

export function totalTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

export function resultText(block: ToolResultBlockParam): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  return (c ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

export function stripErrorTags(text: string): string {
  return text.replace(/^<tool_use_error>|<\/tool_use_error>$/g, '');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
