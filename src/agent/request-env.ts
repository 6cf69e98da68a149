/**
 * Claude Code's environment variables that shape each model request, read the way Claude Code 2.1.332 reads them
 * (recorded by pointing it at toolgate's scripted server and reading its requests; docs/cli.md, "environment
 * variables"):
 * - `CLAUDE_CODE_MAX_OUTPUT_TOKENS=N`: `max_tokens` N, at most 64,000 (its cap for claude-sonnet-4-5); not a whole
 *   positive number: ignored.
 * - `MAX_THINKING_TOKENS=N`: extended thinking with a budget of N, kept below `max_tokens` (Claude Code sends
 *   `max_tokens - 1` for a larger N); `0`: thinking `{ type: "disabled" }`.
 * - `CLAUDE_CODE_DISABLE_THINKING=1`: no `thinking` at all, whatever else asks for it.
 * - `DISABLE_PROMPT_CACHING=1`: no `cache_control` anywhere in the request; `DISABLE_PROMPT_CACHING_SONNET` (`_OPUS`,
 *   `_HAIKU`, `_FABLE`) for the requests to that alias's model only (its id, `ANTHROPIC_DEFAULT_*_MODEL` included —
 *   Claude Code did not apply `_SONNET` to claude-sonnet-4-5, an id no alias names).
 * The session's own options (`maxTokens`, `thinking`) come before the variables, as a flag comes before the
 * environment in Claude Code.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { MODEL_ALIASES, resolveModel, type ModelAlias } from '../tool/models.js';

/** The largest `CLAUDE_CODE_MAX_OUTPUT_TOKENS` Claude Code sends (what it sent for 200,000, for claude-sonnet-4-5). */
export const MAX_OUTPUT_TOKENS_CAP = 64_000;

type Env = Readonly<Record<string, string | undefined>>;

/** `1`, `true`, `yes`, `on` (any case): Claude Code's reading of a switch; `0` and anything else is off. */
export function envSwitchOn(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function wholeNumber(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

export interface RequestEnv {
  /** `max_tokens` from `CLAUDE_CODE_MAX_OUTPUT_TOKENS`, capped. */
  readonly maxTokens?: number;
  /** The thinking a request gets when the session names none, given its `max_tokens`; undefined: none. */
  thinking(given: Anthropic.Messages.ThinkingConfigParam | undefined, maxTokens: number): Anthropic.Messages.ThinkingConfigParam | undefined;
  /** Whether requests to `model` carry prompt-cache breakpoints. */
  promptCaching(model: string): boolean;
}

export function requestEnvOf(env: Env): RequestEnv {
  const out = wholeNumber(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS);
  const budget = wholeNumber(env.MAX_THINKING_TOKENS);
  const thinkingOff = envSwitchOn(env.CLAUDE_CODE_DISABLE_THINKING);
  const noCache = envSwitchOn(env.DISABLE_PROMPT_CACHING);
  const noCacheFor = new Set(
    (Object.keys(MODEL_ALIASES) as ModelAlias[]).filter((a) => envSwitchOn(env[`DISABLE_PROMPT_CACHING_${a.toUpperCase()}`])).map((a) => resolveModel(a, env)),
  );
  return {
    ...(out !== undefined && out > 0 ? { maxTokens: Math.min(out, MAX_OUTPUT_TOKENS_CAP) } : {}),
    thinking(given, maxTokens) {
      if (thinkingOff) return undefined;
      if (given !== undefined) return given;
      if (budget === undefined) return undefined;
      if (budget === 0) return { type: 'disabled' };
      return { type: 'enabled', budget_tokens: Math.min(budget, maxTokens - 1) };
    },
    promptCaching: (model) => !noCache && !noCacheFor.has(model),
  };
}
