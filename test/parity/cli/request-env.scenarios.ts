/**
 * Claude Code's environment variables that shape its requests (src/agent/request-env.ts): each case is a model and
 * the variables a script sets; the recording keeps what the main loop's requests carried — `max_tokens`, `thinking`
 * (its type and budget) and how many prompt-cache breakpoints. `compare` names the values toolgate must equal: where
 * a case leaves thinking to the model's default, Claude Code turns thinking on by its own per-model table and
 * toolgate sends none (docs/cli.md), so only the other values are compared.
 */
import path from 'node:path';

export const REQUEST_ENV_RECORDING = path.join(import.meta.dirname, 'request-env.json');

export type RequestValue = 'max_tokens' | 'thinking' | 'breakpoints';

export interface RequestEnvCase {
  readonly name: string;
  readonly model: string;
  readonly env: Readonly<Record<string, string>>;
  readonly compare: readonly RequestValue[];
}

const ALL: readonly RequestValue[] = ['max_tokens', 'thinking', 'breakpoints'];

export const REQUEST_ENV_CASES: readonly RequestEnvCase[] = [
  { name: 'thinking budget', model: 'claude-sonnet-4-5', env: { MAX_THINKING_TOKENS: '5000' }, compare: ALL },
  { name: 'thinking off', model: 'claude-sonnet-4-5', env: { MAX_THINKING_TOKENS: '0' }, compare: ALL },
  { name: 'output and thinking', model: 'claude-sonnet-4-5', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8000', MAX_THINKING_TOKENS: '2000' }, compare: ALL },
  { name: 'thinking above output', model: 'claude-sonnet-4-5', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '4096', MAX_THINKING_TOKENS: '50000' }, compare: ALL },
  { name: 'output over the cap', model: 'claude-sonnet-4-5', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '200000' }, compare: ['max_tokens', 'breakpoints'] },
  { name: 'output not a number', model: 'claude-sonnet-4-5', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: 'abc' }, compare: ['max_tokens', 'breakpoints'] },
  { name: 'thinking disabled', model: 'claude-sonnet-4-5', env: { CLAUDE_CODE_DISABLE_THINKING: '1', MAX_THINKING_TOKENS: '5000' }, compare: ALL },
  { name: 'no prompt caching', model: 'claude-sonnet-4-5', env: { DISABLE_PROMPT_CACHING: '1' }, compare: ['max_tokens', 'breakpoints'] },
  { name: 'prompt caching switch 0', model: 'claude-sonnet-4-5', env: { DISABLE_PROMPT_CACHING: '0' }, compare: ['max_tokens', 'breakpoints'] },
  { name: 'no caching for the sonnet alias', model: 'sonnet', env: { DISABLE_PROMPT_CACHING_SONNET: '1' }, compare: ['breakpoints'] },
  { name: 'sonnet switch, another sonnet id', model: 'claude-sonnet-4-5', env: { DISABLE_PROMPT_CACHING_SONNET: '1' }, compare: ['max_tokens', 'breakpoints'] },
];

export interface RequestShape {
  readonly max_tokens: number;
  readonly thinking: { type: string; budget_tokens?: number } | null;
  readonly breakpoints: number;
}

/** The values of one request body (a main-loop request: it offers tools). */
export function requestShape(body: { max_tokens: number; thinking?: { type: string; budget_tokens?: number } }): RequestShape {
  let breakpoints = 0;
  JSON.stringify(body, (key, value: unknown) => {
    if (key === 'cache_control' && value != null) breakpoints++;
    return value;
  });
  const t = body.thinking;
  return { max_tokens: body.max_tokens, thinking: t ? { type: t.type, ...(t.budget_tokens !== undefined ? { budget_tokens: t.budget_tokens } : {}) } : null, breakpoints };
}
