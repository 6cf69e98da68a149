/**
 * Auto mode's decision logic (the seeds' transcript classifier), pure: when a call would otherwise ask, a classifier
 * decides from the transcript. The classifier is a function handed in — the model-calling one lives in
 * src/agent/auto-classifier.ts; nothing here talks to a model.
 *
 * What it may decide, and what never reaches it:
 * - deny and ask rules, hooks, the tool's own checks and the mode come first (the resolution chain): only a final
 *   `ask` gets here;
 * - an ask rule, a hook's ask, a safety check marked `classifierApprovable: false` (path tricks, unreadable input, an
 *   allow ceiling) and a tool whose `toAutoClassifierInput` is '' go to a person — never to the classifier;
 * - a verdict is `allow` or `deny`; anything else — unsure at its last stage, an answer it could not read, a
 *   timeout, a refusal, an API error, a classifier that throws — is no verdict: the call goes to a person, or is
 *   denied headless, with the reason in the trace. Nothing but an explicit `allow` allows.
 *
 * Denial tracking (Claude Code's numbers: 3 blocks in a row or 20 in all): a classifier block counts; the block that
 * reaches a limit is handed to a person instead (headless: it stays denied), and from then on the classifier is not
 * asked — calls it would judge go to a person (headless: denied) until a person approves one, which resumes auto mode.
 * A classifier allow ends a run of blocks. The counters are the agent's (`localDenialTracking`: a sub-agent starts
 * fresh). Failures to answer are not blocks and do not count: each goes to a person (or is denied headless) on its own.
 */
import type {
  ClassifierTrace,
  DecisionTrace,
  PermissionAskDecision,
  PermissionDecision,
} from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { createChildAbortController, type DenialTrackingState, type ToolUseContext } from '../tool/tool-use-context.js';
import { classifierInputOf, classifierTranscript, type ClassifierTranscriptEntry } from './classifier-transcript.js';
import type { SpeculativeClassifier } from './speculative-classifier.js';

/** One call for the classifier to judge. */
export interface ClassifierRequest {
  readonly tool: AnyTool;
  readonly input: Record<string, unknown>;
  /** The tool's compact description of the call (`toAutoClassifierInput`): what the classifier judges. */
  readonly classifierInput: string;
  /** Why the engine would ask (its trace says which layer and what it found). */
  readonly ask: PermissionAskDecision;
  /** The conversation as the classifier may see it: the user's words and the tool calls, never tool results. */
  readonly transcript: readonly ClassifierTranscriptEntry[];
  readonly toolUseID: string;
  /** The whole context, for a classifier of the embedder's own; the built-in one reads only the fields above. */
  readonly context: ToolUseContext;
  readonly signal: AbortSignal;
  /** Started early (pipeline step 5), before hooks ran; its verdict is used only if the engine asks for it. */
  readonly speculative: boolean;
}

/** What a classifier answers. `ask`: no verdict (it could not decide) — a person decides, or headless denies. */
export interface ClassifierVerdict extends Pick<ClassifierTrace, 'stage' | 'models' | 'usage' | 'costUsd' | 'durationMs'> {
  readonly behavior: 'allow' | 'deny' | 'ask';
  readonly reason: string;
}

/** Decides what would prompt in `auto` mode. A bare string is a verdict without a reason. */
export type PermissionClassifier = (request: ClassifierRequest) => Promise<ClassifierVerdict | 'allow' | 'deny' | 'ask'>;

/** After this many classifier blocks in a row, or in all, auto mode falls back to asking a person. */
export interface DenialLimits {
  readonly consecutive: number;
  readonly total: number;
}

/** Claude Code's documented limits: 3 blocks in a row or 20 in all. */
export const DEFAULT_DENIAL_LIMITS: DenialLimits = Object.freeze({ consecutive: 3, total: 20 });
/** How long the engine waits for a verdict (both stages together) before the call goes to a person. */
export const DEFAULT_CLASSIFIER_TIMEOUT_MS = 60_000;

export interface AutoModeOptions {
  /** Decides what would prompt in `auto` mode. Without one, auto mode asks a person (headless: denies). */
  readonly classifier?: PermissionClassifier;
  readonly denialLimits?: DenialLimits;
  /** The longest wait for a verdict; then there is none (default 60 s). */
  readonly classifierTimeoutMs?: number;
  /** Early classifications of shell calls (pipeline step 5), taken here when they match. */
  readonly speculation?: SpeculativeClassifier;
}

export type Eligibility =
  | { readonly consult: true; readonly classifierInput: string }
  /** `paused`: the denial limits were reached (the model is told, so it does not keep trying the same way). */
  | { readonly consult: false; readonly reason: string; readonly paused?: boolean };

/** Whether this `ask` goes to the classifier, and if not, why (the trace says so). */
export function classifierEligibility(
  ask: PermissionAskDecision,
  tool: AnyTool,
  input: Record<string, unknown>,
  state: { readonly hasClassifier: boolean; readonly tracking?: DenialTrackingState; readonly limits?: DenialLimits },
): Eligibility {
  const t = ask.decisionReason;
  if (t?.layer === 'askRule') return { consult: false, reason: `the ask rule ${t.rule ?? ''} requires a person`.replace('  ', ' ') };
  if (t?.layer === 'hook') return { consult: false, reason: 'a PreToolUse hook asked for a person' };
  if (t?.classifierApprovable === false) return { consult: false, reason: `the classifier may not approve this (${t.reason})` };
  if (!state.hasClassifier) return { consult: false, reason: 'no classifier is configured' };
  const paused = pauseReason(state.tracking, state.limits ?? DEFAULT_DENIAL_LIMITS);
  if (paused !== undefined) return { consult: false, reason: paused, paused: true };
  const classifierInput = classifierInputOf(tool, input);
  if (classifierInput === '') return { consult: false, reason: `${tool.name} gives the classifier nothing to judge (its toAutoClassifierInput is empty)` };
  return { consult: true, classifierInput };
}

/**
 * The classifier's answer for a call the engine would ask about: an allow or a deny it decided, or the ask (with the
 * classifier's part in its trace) for the person or the headless denial that follows.
 */
export async function consultClassifier(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  toolUseID: string,
  ask: PermissionAskDecision,
  options: AutoModeOptions,
): Promise<PermissionDecision> {
  const tracking = context.localDenialTracking;
  const limits = options.denialLimits ?? DEFAULT_DENIAL_LIMITS;
  const eligibility = classifierEligibility(ask, tool, input, { hasClassifier: options.classifier !== undefined, tracking, limits });
  if (!eligibility.consult) {
    const said = eligibility.paused === true ? `${traceOf(ask).reason}; ${eligibility.reason}` : undefined;
    return withClassifier(ask, { outcome: 'skipped', reason: eligibility.reason }, said);
  }

  const started = performance.now();
  const classifierInput = eligibility.classifierInput;
  const controller = createChildAbortController(context.abortController);
  const classifyNow = async (): Promise<ClassifierVerdict> => {
    try {
      const transcript = classifierTranscript(context.messages, { tools: context.options.tools, currentToolUseId: toolUseID, subagent: context.agentDepth > 0 });
      const request: ClassifierRequest = { tool, input, classifierInput, ask, transcript, toolUseID, context, signal: controller.signal, speculative: false };
      return normalizeVerdict(await options.classifier!(request));
    } catch (error) {
      return failed(error);
    }
  };
  const timeoutMs = options.classifierTimeoutMs ?? DEFAULT_CLASSIFIER_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ClassifierVerdict>((resolve) => {
    timer = setTimeout(() => resolve({ behavior: 'ask', reason: `no verdict within ${formatSeconds(timeoutMs)} (timeout)` }), timeoutMs);
  });
  // An early classification of this very call (same description) is taken over; otherwise the classifier is asked now.
  const early = options.speculation?.take(toolUseID, classifierInput);
  let verdict: ClassifierVerdict;
  let speculative = false;
  try {
    const answer = early ? await Promise.race([early.verdict, timeout]) : await Promise.race([classifyNow(), timeout]);
    speculative = early !== undefined && answer !== undefined;
    // A speculation whose own check found nothing to judge brings no verdict: ask the classifier now.
    verdict = answer ?? (await Promise.race([classifyNow(), timeout]));
  } finally {
    clearTimeout(timer);
    // Whatever still runs is not needed any more (a timeout, or the call was aborted): no request is left behind.
    controller.abort('classifier no longer needed');
    early?.abort();
  }

  const trace: ClassifierTrace = {
    outcome: verdict.behavior === 'allow' ? 'allow' : verdict.behavior === 'deny' ? 'deny' : 'unavailable',
    reason: verdict.reason,
    ...(verdict.stage !== undefined ? { stage: verdict.stage } : {}),
    ...(verdict.models !== undefined ? { models: verdict.models } : {}),
    ...(verdict.usage !== undefined ? { usage: verdict.usage } : {}),
    ...(verdict.costUsd !== undefined ? { costUsd: verdict.costUsd } : {}),
    durationMs: verdict.durationMs ?? performance.now() - started,
    ...(speculative ? { speculative: true } : {}),
  };
  const base = traceOf(ask);
  const stage = verdict.stage !== undefined ? ` (stage ${verdict.stage})` : '';
  if (verdict.behavior === 'allow') {
    tracking.classifierConsecutiveDenials = 0;
    return {
      behavior: 'allow',
      decisionReason: { ...base, layer: 'classifier', reason: `the auto-mode classifier allowed this call${stage}: ${verdict.reason}; it would have asked: ${base.reason}`, classifier: trace },
    };
  }
  if (verdict.behavior === 'deny') {
    const inRow = (tracking.classifierConsecutiveDenials = (tracking.classifierConsecutiveDenials ?? 0) + 1);
    const inAll = (tracking.classifierTotalDenials = (tracking.classifierTotalDenials ?? 0) + 1);
    const blocked = `the auto-mode classifier blocked this call${stage}: ${verdict.reason}`;
    if (inRow >= limits.consecutive || inAll >= limits.total) {
      const count = inRow >= limits.consecutive ? `${inRow} blocks in a row` : `${inAll} blocks in all`;
      return withClassifier(ask, trace, `${blocked} — that makes ${count}, so auto mode falls back to asking a person (${base.reason})`);
    }
    const reason = `${blocked}. If this is what the user wants, they can approve it themselves or add an allow rule`;
    return { behavior: 'deny', message: `Permission denied: ${reason}.`, decisionReason: { ...base, layer: 'classifier', reason, classifier: trace } };
  }
  return withClassifier(ask, trace, `${base.reason}; the auto-mode classifier gave no verdict (${verdict.reason}), so a person decides`);
}

/** A person approved a call: the run of blocks is over, and auto mode resumes if it had paused. */
export function recordPersonApproval(tracking: DenialTrackingState): void {
  tracking.classifierConsecutiveDenials = 0;
  tracking.classifierTotalDenials = 0;
}

/** Why the classifier is not asked any more (the denial limits were reached), or undefined. */
export function pauseReason(tracking: DenialTrackingState | undefined, limits: DenialLimits): string | undefined {
  const inRow = tracking?.classifierConsecutiveDenials ?? 0;
  const inAll = tracking?.classifierTotalDenials ?? 0;
  if (inRow >= limits.consecutive) return `auto mode is paused: the classifier blocked ${inRow} calls in a row (limit ${limits.consecutive}); a person's approval resumes it`;
  if (inAll >= limits.total) return `auto mode is paused: the classifier blocked ${inAll} calls in this session (limit ${limits.total}); a person's approval resumes it`;
  return undefined;
}

/** A classifier's answer as a verdict; anything that is not a clear allow or deny is no verdict. */
export function normalizeVerdict(answer: unknown): ClassifierVerdict {
  if (answer === 'allow' || answer === 'deny') return { behavior: answer, reason: `the classifier said ${answer}` };
  if (answer === 'ask') return { behavior: 'ask', reason: 'the classifier could not decide' };
  if (answer !== null && typeof answer === 'object') {
    const v = answer as Partial<ClassifierVerdict>;
    const reason = typeof v.reason === 'string' && v.reason.trim() !== '' ? v.reason : 'no reason given';
    if (v.behavior === 'allow' || v.behavior === 'deny' || v.behavior === 'ask') return { ...v, behavior: v.behavior, reason } as ClassifierVerdict;
  }
  return { behavior: 'ask', reason: `the classifier's answer could not be read (${describe(answer)})` };
}

function failed(error: unknown): ClassifierVerdict {
  return { behavior: 'ask', reason: `the classifier failed: ${error instanceof Error ? error.message : String(error)}` };
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 80) ?? String(value);
  } catch {
    return typeof value;
  }
}

function traceOf(ask: PermissionAskDecision): DecisionTrace {
  return ask.decisionReason ?? { layer: 'prompt', reason: ask.message };
}

/** The ask, handed on to a person (or the headless denial), with the classifier's part in its trace. */
function withClassifier(ask: PermissionAskDecision, classifier: ClassifierTrace, reason: string | undefined): PermissionAskDecision {
  const base = traceOf(ask);
  return { ...ask, ...(reason !== undefined ? { message: `${ask.message} (${classifier.reason})` } : {}), decisionReason: { ...base, reason: reason ?? base.reason, classifier } };
}
