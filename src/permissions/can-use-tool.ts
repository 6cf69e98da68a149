/**
 * `createCanUseTool()`: the gate the executor calls for every tool call. It runs the resolution chain, then turns a
 * final `ask` into an answer: dontAsk (or a context that must avoid prompts) denies; auto asks the injected classifier
 * (its `ask` falls through to a person); bubble and default ask the handler in `context.ui.requestPermission` (a
 * sub-agent shares its parent's, so bubble escalates); with no handler (headless) the call is denied with a message
 * naming the rule that would allow it. An abort during a prompt denies, exactly once.
 */
import type {
  DecisionTrace,
  PermissionAskDecision,
  PermissionDecision,
  PermissionDenyDecision,
} from '../tool/permission-types.js';
import type { AnyTool, AssistantMessage, CanUseToolFn } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { headlessDenyMessage, hasPermissionsToUseTool } from './resolve.js';
import { createResolveOnce } from './resolve-once.js';

export interface ClassifierRequest {
  readonly tool: AnyTool;
  readonly input: Record<string, unknown>;
  /** The tool's compact description of the call for a classifier (`toAutoClassifierInput`). */
  readonly classifierInput: string;
  readonly ask: PermissionAskDecision;
  readonly context: ToolUseContext;
  readonly signal: AbortSignal;
}

export type PermissionClassifier = (request: ClassifierRequest) => Promise<'allow' | 'deny' | 'ask'>;

export interface CanUseToolOptions {
  /** Decides what would prompt in `auto` mode. No model ships with toolgate: without one, auto behaves like default. */
  readonly classifier?: PermissionClassifier;
}

export function createCanUseTool(options: CanUseToolOptions = {}): CanUseToolFn {
  return async (tool, input, context, _assistantMessage: AssistantMessage, toolUseID, forceDecision) => {
    if (context.abortController.signal.aborted) return abortedDeny();
    const decision = await hasPermissionsToUseTool(tool, input, context, forceDecision);
    if (decision.behavior !== 'ask') return decision;
    const ctx = context.getAppState().toolPermissionContext;

    // bubble escalates to the parent's handler even from an agent that cannot show prompts itself.
    if (ctx.mode === 'dontAsk' || (ctx.shouldAvoidPermissionPrompts === true && ctx.mode !== 'bubble')) {
      const why = ctx.mode === 'dontAsk' ? 'dontAsk mode denies what would prompt' : 'this agent cannot show permission prompts';
      return denyFrom(decision, 'mode', `${why}: ${decision.decisionReason?.reason ?? decision.message}`);
    }

    // An ask rule or a hook's ask wants a person; adversarial-looking safety checks are never classifier business.
    const t = decision.decisionReason;
    const classifiable = t?.classifierApprovable !== false && t?.layer !== 'askRule' && t?.layer !== 'hook';
    // A tool that gives the classifier nothing to judge ('') is not sent to it: the call goes to a person.
    const classifierInput = ctx.mode === 'auto' && options.classifier && classifiable ? safeClassifierInput(tool, input) : '';
    if (classifierInput !== '' && options.classifier) {
      let verdict: 'allow' | 'deny' | 'ask';
      try {
        verdict = await options.classifier({
          tool,
          input,
          classifierInput,
          ask: decision,
          context,
          signal: context.abortController.signal,
        });
      } catch {
        verdict = 'ask'; // a failing classifier decides nothing
      }
      if (context.abortController.signal.aborted) return abortedDeny();
      if (verdict === 'allow') {
        return { behavior: 'allow', decisionReason: { ...trace(decision), layer: 'classifier', reason: `the auto-mode classifier approved: ${trace(decision).reason}` } };
      }
      if (verdict === 'deny') return denyFrom(decision, 'classifier', `the auto-mode classifier refused: ${trace(decision).reason}`);
    }

    const handler = context.ui?.requestPermission;
    if (!handler) {
      return denyFrom(decision, 'prompt', `no one can answer a permission prompt here (headless): ${trace(decision).reason}`);
    }
    return promptOnce(handler, tool, input, toolUseID, decision, context);
  };
}

function promptOnce(
  handler: NonNullable<NonNullable<ToolUseContext['ui']>['requestPermission']>,
  tool: AnyTool,
  input: Record<string, unknown>,
  toolUseID: string,
  ask: PermissionAskDecision,
  context: ToolUseContext,
): Promise<PermissionDecision> {
  const signal = context.abortController.signal;
  return new Promise<PermissionDecision>((resolvePromise) => {
    const once = createResolveOnce<PermissionDecision>(resolvePromise);
    // The handler itself may abort the run as it answers ("deny and stop" interrupts the turn): its refusal, already
    // on its way, is given a moment to arrive and stands; a prompt nobody answers is withdrawn.
    const onAbort = () => {
      setImmediate(() => {
        if (once.claim()) once.resolve(abortedDeny());
      });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (d: PermissionDecision) => {
      signal.removeEventListener('abort', onAbort);
      // After an abort only a refusal may still land (fail closed): an approval that comes late is not one.
      if (once.claim()) once.resolve(signal.aborted && d.behavior !== 'deny' ? abortedDeny() : d);
    };
    let answer: Promise<PermissionDecision>;
    try {
      answer = handler({ tool, input, toolUseID, ask, signal });
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (d) => done(fromPrompt(d, ask)),
      (error: unknown) => done(denyFrom(ask, 'prompt', `the permission prompt failed: ${error instanceof Error ? error.message : String(error)}`)),
    );
  });
}

/** The person's answer, with a trace that says a person decided (keeping the rule context of what asked). */
function fromPrompt(answer: PermissionDecision, ask: PermissionAskDecision): PermissionDecision {
  const base = trace(ask);
  if (answer.behavior === 'allow') {
    return { ...answer, decisionReason: answer.decisionReason ?? { ...base, layer: 'prompt', reason: `approved at the prompt (${base.reason})` } };
  }
  if (answer.behavior === 'deny') {
    return { ...answer, decisionReason: answer.decisionReason ?? { ...base, layer: 'prompt', reason: `refused at the prompt (${base.reason})` } };
  }
  // A handler that answers `ask` again decided nothing: fail closed.
  return denyFrom(ask, 'prompt', `the prompt gave no answer (${base.reason})`);
}

function trace(d: PermissionAskDecision): DecisionTrace {
  return d.decisionReason ?? { layer: 'prompt', reason: d.message };
}

function denyFrom(ask: PermissionAskDecision, layer: DecisionTrace['layer'], reason: string): PermissionDenyDecision {
  return {
    behavior: 'deny',
    message: headlessDenyMessage(ask, `Permission denied: ${reason}`),
    decisionReason: { ...trace(ask), layer, reason },
  };
}

function abortedDeny(): PermissionDenyDecision {
  return { behavior: 'deny', message: 'The tool call was aborted before permission was given', decisionReason: { layer: 'prompt', reason: 'aborted while waiting for permission', answer: 'abort' } };
}

function safeClassifierInput(tool: AnyTool, input: Record<string, unknown>): string {
  try {
    return tool.toAutoClassifierInput(input);
  } catch {
    return '';
  }
}
