/**
 * What the agent loop tells the telemetry sink (the runtime's `services.telemetry`, absent when telemetry is off):
 * the person's prompt (its length; its text only for a sink switched on for prompts) and each model request (model,
 * tokens, cost, duration, which agent asked) or its failure. No OpenTelemetry here: the sink is an interface.
 */
import { emitToolEvent } from '../execution/errors.js';
import type { ModelStepResult } from './model-step.js';
import type { ToolRuntime } from './types.js';
import type { QueryOptions } from './query-options.js';
import { contextOf } from './runtime-context.js';

/** The prompt as it was submitted (its last user message; before hooks add context). */
export function reportPrompt(runtime: ToolRuntime, prompt: QueryOptions['prompt']): void {
  const sink = contextOf(runtime).services.telemetry;
  if (!sink) return;
  const last = typeof prompt === 'string' ? { role: 'user' as const, content: prompt } : prompt.at(-1);
  if (last?.role !== 'user') return;
  const text = typeof last.content === 'string' ? last.content : last.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
  emitToolEvent(sink, 'user.prompt', { 'prompt.length': text.length }, sink.content?.prompts === true ? { prompt: text } : undefined);
}

export function reportModelStep(runtime: ToolRuntime, model: string, step: ModelStepResult, durationMs: number, costUsd: number): void {
  const sink = contextOf(runtime).services.telemetry;
  if (!sink) return;
  const { agentId, agentType } = contextOf(runtime);
  const agent = agentId !== undefined ? { query_source: 'subagent', 'agent.name': agentType ?? 'general-purpose' } : { query_source: 'main' };
  const duration = Math.round(durationMs);
  if (step.error !== undefined) {
    const status = /failed: (\d{3})\b/.exec(step.error)?.[1];
    emitToolEvent(sink, 'model.error', { model, error: step.error, status_code: status !== undefined ? Number(status) : undefined, duration_ms: duration, attempt: step.attempts, ...agent });
    return;
  }
  const u = step.usage;
  if (u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens === 0) return; // no request got through
  emitToolEvent(sink, 'model.request', {
    model,
    cost_usd: costUsd,
    duration_ms: duration,
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_input_tokens,
    cache_creation_tokens: u.cache_creation_input_tokens,
    ...agent,
  });
}
