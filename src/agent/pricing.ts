/**
 * Usage arithmetic and a small price table by model family (US dollars per million tokens, list prices). Cache writes
 * cost 1.25× the input price (5-minute cache), cache reads 0.1×. A model outside the table costs 0 and says so.
 */
import type { Usage } from './query-types.js';

interface Price {
  readonly input: number;
  readonly output: number;
}

// Most specific first: the older Opus and Haiku generations were priced differently from the current ones.
const PRICES: readonly (readonly [RegExp, Price])[] = [
  [/opus-4-(0|1)\b|opus-4-2025|claude-3-opus/, { input: 15, output: 75 }],
  [/opus/, { input: 5, output: 25 }],
  [/sonnet/, { input: 3, output: 15 }],
  [/haiku-3-5|3-5-haiku/, { input: 0.8, output: 4 }],
  [/3-haiku/, { input: 0.25, output: 1.25 }],
  [/haiku/, { input: 1, output: 5 }],
];

export function priceOf(model: string): Price | undefined {
  return PRICES.find(([pattern]) => pattern.test(model))?.[1];
}

/** What `usage` cost on `model`, in dollars (0 for a model outside the table). */
export function costOf(model: string, usage: Usage): number {
  const price = priceOf(model);
  if (!price) return 0;
  const perToken = (perMillion: number) => perMillion / 1_000_000;
  return (
    usage.input_tokens * perToken(price.input) +
    usage.cache_creation_input_tokens * perToken(price.input * 1.25) +
    usage.cache_read_input_tokens * perToken(price.input * 0.1) +
    usage.output_tokens * perToken(price.output)
  );
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    input_tokens: total.input_tokens + more.input_tokens,
    output_tokens: total.output_tokens + more.output_tokens,
    cache_creation_input_tokens: total.cache_creation_input_tokens + more.cache_creation_input_tokens,
    cache_read_input_tokens: total.cache_read_input_tokens + more.cache_read_input_tokens,
  };
}

/** Reads the API's usage object (fields may be null or absent) into numbers. */
export function usageFrom(raw: Partial<Record<keyof Usage, number | null>> | null | undefined, base: Usage = emptyUsage()): Usage {
  const pick = (key: keyof Usage) => (typeof raw?.[key] === 'number' ? (raw[key] as number) : base[key]);
  return {
    input_tokens: pick('input_tokens'),
    output_tokens: pick('output_tokens'),
    cache_creation_input_tokens: pick('cache_creation_input_tokens'),
    cache_read_input_tokens: pick('cache_read_input_tokens'),
  };
}

/**
 * What auto mode's classifier spent deciding these calls (each decision's trace keeps its tokens and cost), so that a
 * session's usage and cost include the classifier's model calls.
 */
export function classifierSpendOf(outcomes: readonly { readonly decision?: { readonly decisionReason?: { readonly classifier?: { readonly usage?: Partial<Usage>; readonly costUsd?: number } } } }[]): { usage: Usage; costUsd: number } {
  let usage = emptyUsage();
  let costUsd = 0;
  for (const outcome of outcomes) {
    const spent = outcome.decision?.decisionReason?.classifier;
    if (spent?.usage !== undefined) usage = addUsage(usage, usageFrom(spent.usage as never));
    if (typeof spent?.costUsd === 'number' && Number.isFinite(spent.costUsd)) costUsd += spent.costUsd;
  }
  return { usage, costUsd };
}
