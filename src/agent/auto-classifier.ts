/**
 * Auto mode's built-in classifier: two Messages API calls at most. Stage one asks a small fast model for allow, block
 * or unsure, as a forced call of the verdict tool; unsure goes to stage two, the session's model with extended
 * thinking, which must call the tool with allow or block. The decision logic around it (what reaches it, denial
 * limits, timeouts, what happens without a verdict) is the permission layer's (src/permissions/auto-mode.ts); this
 * module only asks the models and reads their answers (classifier-prompt.ts: strictly, the call or nothing).
 *
 * Never an allow by accident: an answer that is not exactly one well-formed verdict call, unsure at stage two, a
 * refusal, a truncated answer or an API error after its retries is "no verdict" (`behavior: 'ask'`), with the reason.
 * Every verdict carries the stages it took, the models, the tokens and what they cost, which the decision's trace
 * keeps and `query()` adds to the session.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ClassifierRequest, ClassifierVerdict, PermissionClassifier } from '../permissions/auto-mode.js';
import type { ClassifierUsage } from '../tool/permission-types.js';
import { classifierRequestText, classifierSystemPrompt, classifierToolChoice, classifierVerdictTool, readClassifierAnswer, type AutoModeRules } from './classifier-prompt.js';
import { addUsage, costOf, emptyUsage, usageFrom } from './pricing.js';
import { classifyApiError, retryDelayMs, sleep, type RetryPolicy } from './retry.js';

/**
 * The small fast model of stage one when nothing else is configured (the id Claude Code 2.1.328 sends for `haiku`).
 * One place: when the house has a model alias table, this becomes its `haiku`.
 */
export const DEFAULT_CLASSIFIER_FAST_MODEL = 'claude-haiku-5-5';

/** The built-in classifier's configuration (`createToolRuntime({ classifier })`, settings `toolgate.autoMode`). */
export interface AutoClassifierOptions {
  /** The Messages API client (default: the runtime's `client`). */
  readonly client?: Anthropic;
  /** Stage one (default `claude-haiku-5-5`). */
  readonly fastModel?: string;
  /** Stage two, with extended thinking (default: the session's model at the time of the call). */
  readonly thinkingModel?: string;
  /** Stage two's thinking budget (default 2048, at least 1024). */
  readonly thinkingBudgetTokens?: number;
  /** Retries of a failed request (429, 5xx, 529, dropped connections); default 2, from 250 ms. */
  readonly retry?: RetryPolicy;
  /** Claude Code's `autoMode` prose (environment, allow, soft_deny, hard_deny). */
  readonly rules?: AutoModeRules;
}

const STAGE_ONE_MAX_TOKENS = 256;
const STAGE_TWO_ANSWER_TOKENS = 512;
const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 4_000, maxRetryAfterMs: 10_000 };

type StageResult =
  | { readonly ok: true; readonly verdict: 'allow' | 'deny' | 'unsure'; readonly reason: string; readonly usage: ClassifierUsage; readonly model: string }
  | { readonly ok: false; readonly why: string; readonly usage: ClassifierUsage; readonly model: string };

/** The two-stage classifier over `client` (a function for `createCanUseTool({ classifier })`). */
export function createAutoModeClassifier(options: AutoClassifierOptions & { readonly client: Anthropic }): PermissionClassifier {
  const fastModel = options.fastModel ?? DEFAULT_CLASSIFIER_FAST_MODEL;
  const budget = Math.max(1024, Math.floor(options.thinkingBudgetTokens ?? 2048));
  return async (request: ClassifierRequest): Promise<ClassifierVerdict> => {
    const started = performance.now();
    const text = classifierRequestText(request);
    const one = await ask(options, request.signal, 1, {
      model: fastModel,
      max_tokens: STAGE_ONE_MAX_TOKENS,
      system: classifierSystemPrompt(1, options.rules),
      messages: [{ role: 'user', content: text }],
      tools: [classifierVerdictTool(1)],
      tool_choice: classifierToolChoice(1),
    });
    const spent = (results: readonly StageResult[]) => {
      const usage = results.reduce<ClassifierUsage>((sum, r) => addUsage(sum, r.usage), emptyUsage());
      return {
        models: results.map((r) => r.model),
        usage,
        costUsd: results.reduce((sum, r) => sum + costOf(r.model, r.usage), 0),
        durationMs: performance.now() - started,
      };
    };
    if (!one.ok) return { behavior: 'ask', reason: `stage one gave no verdict: ${one.why}`, stage: 1, ...spent([one]) };
    if (one.verdict !== 'unsure') return { behavior: one.verdict, reason: one.reason, stage: 1, ...spent([one]) };

    const thinkingModel = options.thinkingModel ?? request.context.options.mainLoopModel;
    const two = await ask(options, request.signal, 2, {
      model: thinkingModel,
      max_tokens: budget + STAGE_TWO_ANSWER_TOKENS,
      thinking: { type: 'enabled', budget_tokens: budget },
      system: classifierSystemPrompt(2, options.rules),
      messages: [{ role: 'user', content: `${text}\n\nA first, quick look was unsure: ${one.reason}` }],
      tools: [classifierVerdictTool(2)],
      tool_choice: classifierToolChoice(2),
    });
    if (!two.ok) return { behavior: 'ask', reason: `stage one was unsure (${one.reason}); stage two gave no verdict: ${two.why}`, stage: 2, ...spent([one, two]) };
    if (two.verdict === 'unsure') return { behavior: 'ask', reason: `still unsure after thinking it through: ${two.reason}`, stage: 2, ...spent([one, two]) };
    return { behavior: two.verdict, reason: two.reason, stage: 2, ...spent([one, two]) };
  };
}

/** One stage: the request with retries, and its answer read. */
async function ask(
  options: AutoClassifierOptions & { readonly client: Anthropic },
  signal: AbortSignal,
  stage: 1 | 2,
  body: Anthropic.Messages.MessageCreateParamsNonStreaming,
): Promise<StageResult> {
  const model = body.model;
  for (let attempt = 0; ; attempt++) {
    let response: Anthropic.Messages.Message;
    try {
      response = await options.client.messages.create(body, { signal, maxRetries: 0 });
    } catch (error) {
      if (signal.aborted) return { ok: false, why: 'the request was cancelled', usage: emptyUsage(), model };
      const classified = classifyApiError(error);
      const delay = retryDelayMs(classified, attempt, options.retry ?? DEFAULT_RETRY);
      if (delay === undefined) {
        const tries = attempt + 1;
        return { ok: false, why: `${classified.description}${classified.retryable ? ` (gave up after ${tries} attempt${tries === 1 ? '' : 's'})` : ''}`, usage: emptyUsage(), model };
      }
      try {
        await sleep(delay, signal);
      } catch {
        return { ok: false, why: 'the request was cancelled', usage: emptyUsage(), model };
      }
      continue;
    }
    const usage = usageFrom(response.usage as never);
    if (response.stop_reason === 'refusal') return { ok: false, why: `${model} refused to answer`, usage, model };
    const parsed = readClassifierAnswer(response, stage);
    if ('unreadable' in parsed) return { ok: false, why: parsed.unreadable, usage, model };
    return { ok: true, verdict: parsed.verdict, reason: parsed.reason, usage, model };
  }
}
