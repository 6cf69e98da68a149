/**
 * `createCanUseTool()`: the gate the executor calls for every tool call. It runs the resolution chain, then turns a
 * final `ask` into an answer: in auto mode the classifier decides first (auto-mode.ts: its allow or deny stands; what
 * it cannot decide goes on); dontAsk (or a context that must avoid prompts) denies; bubble and default ask the handler
 * in `context.ui.requestPermission` (a sub-agent shares its parent's, so bubble escalates); with no handler (headless)
 * the call is denied with a message naming the rule that would allow it. An abort during a prompt denies, exactly once.
 * An early classification of the call (pipeline step 5) is taken over by the classifier step, or discarded here.
 */
import { classifyRisk } from './risk.js';
import type {
  DecisionTrace,
  PermissionAskDecision,
  PermissionDecision,
  PermissionDenyDecision,
  PermissionPreview,
} from '../tool/permission-types.js';
import type { AnyTool, AssistantMessage, CanUseToolFn } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { consultClassifier, recordPersonApproval, type AutoModeOptions } from './auto-mode.js';
import { headlessDenyMessage, hasPermissionsToUseTool } from './resolve.js';
import { createResolveOnce } from './resolve-once.js';

/** Auto mode's classifier, its limits and the early classifications of shell calls (see auto-mode.ts). */
export type CanUseToolOptions = AutoModeOptions;

export function createCanUseTool(options: CanUseToolOptions = {}): CanUseToolFn {
  const decide = async (
    tool: AnyTool,
    input: Record<string, unknown>,
    context: ToolUseContext,
    toolUseID: string,
    forceDecision: PermissionDecision | undefined,
  ): Promise<PermissionDecision> => {
    if (context.abortController.signal.aborted) return abortedDeny();
    let decision = await hasPermissionsToUseTool(tool, input, context, forceDecision);
    if (decision.behavior !== 'ask') return decision;
    const ctx = context.getAppState().toolPermissionContext;

    // Auto mode: the classifier first — for background agents too, whose only alternative to it is a denial.
    if (ctx.mode === 'auto') {
      const judged = await consultClassifier(tool, input, context, toolUseID, decision, options);
      if (context.abortController.signal.aborted) return abortedDeny();
      if (judged.behavior !== 'ask') return judged;
      decision = judged;
    }

    // bubble escalates to the parent's handler even from an agent that cannot show prompts itself.
    if (ctx.mode === 'dontAsk' || (ctx.shouldAvoidPermissionPrompts === true && ctx.mode !== 'bubble')) {
      const why = ctx.mode === 'dontAsk' ? 'dontAsk mode denies what would prompt' : 'this agent cannot show permission prompts';
      return denyFrom(decision, 'mode', `${why}: ${decision.decisionReason?.reason ?? decision.message}`);
    }

    const handler = context.ui?.requestPermission;
    if (!handler) {
      const why = `no one can answer a permission prompt here (headless): ${trace(decision).reason}`;
      const denied = denyFrom(decision, 'prompt', why);
      // A plain lack of permission reads to the model as it does in Claude Code; the trace keeps the rule to add.
      const plain = trace(decision).notGranted;
      return plain ? { ...denied, message: notGrantedMessage(plain), decisionReason: { ...denied.decisionReason!, reason: headlessDenyMessage(decision, why) } } : denied;
    }
    const preview = await previewOf(tool, input, context);
    if (context.abortController.signal.aborted) return abortedDeny();
    const answer = await promptOnce(handler, tool, input, toolUseID, decision, context, preview);
    // A person approving in auto mode ends a run of classifier blocks (and resumes auto mode if it had paused).
    if (ctx.mode === 'auto' && answer.behavior === 'allow') recordPersonApproval(context.localDenialTracking);
    return answer;
  };

  const speculation = options.speculation;
  // Without early classifications there is nothing to take over or discard: the gate is the decision itself (one
  // promise less per call).
  if (!speculation) return (tool, input, context, _assistantMessage: AssistantMessage, toolUseID, forceDecision) => decide(tool, input, context, toolUseID, forceDecision);
  return async (tool, input, context, _assistantMessage: AssistantMessage, toolUseID, forceDecision) => {
    let decision: PermissionDecision;
    let unused;
    try {
      decision = await decide(tool, input, context, toolUseID, forceDecision);
    } finally {
      // Taken by the classifier step, or not needed: nothing started early for this call outlives its decision.
      unused = speculation.discard(toolUseID);
    }
    const t = decision.decisionReason;
    return unused !== undefined && t !== undefined && t.classifier === undefined ? { ...decision, decisionReason: { ...t, classifier: unused } } : decision;
  };
}

function promptOnce(
  handler: NonNullable<NonNullable<ToolUseContext['ui']>['requestPermission']>,
  tool: AnyTool,
  input: Record<string, unknown>,
  toolUseID: string,
  ask: PermissionAskDecision,
  context: ToolUseContext,
  preview: PermissionPreview | undefined,
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
      const risk = classifyRisk(tool, input, context.getAppState().toolPermissionContext);
      answer = handler({ tool, input, toolUseID, ask, signal, risk, ...(preview !== undefined ? { preview } : {}) });
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (d) => done(fromPrompt(d, ask, preview)),
      (error: unknown) => done(denyFrom(ask, 'prompt', `the permission prompt failed: ${error instanceof Error ? error.message : String(error)}`)),
    );
  });
}

/** How long a tool may take to prepare what the prompt shows; past it the prompt shows the input alone. */
const PREVIEW_DEADLINE_MS = 5_000;

/** The tool's preview of the call for the prompt (undefined: none, it failed, or it took too long). */
async function previewOf(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Promise<PermissionPreview | undefined> {
  if (tool.permissionPreview === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, PREVIEW_DEADLINE_MS, undefined);
    });
    return await Promise.race([tool.permissionPreview(input as never, context), late]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The person's answer, with a trace that says a person decided (keeping the rule context of what asked). An approval
 * carries the preview the prompt showed — set here only, whatever the handler returned — so the call is bound to it.
 */
function fromPrompt(answer: PermissionDecision, ask: PermissionAskDecision, preview: PermissionPreview | undefined): PermissionDecision {
  const base = trace(ask);
  if (answer.behavior === 'allow') {
    const { approvedPreview: _ignored, ...rest } = answer;
    return {
      ...rest,
      ...(preview !== undefined ? { approvedPreview: preview } : {}),
      decisionReason: answer.decisionReason ?? { ...base, layer: 'prompt', reason: `approved at the prompt (${base.reason})` },
    };
  }
  if (answer.behavior === 'deny') {
    return { ...answer, decisionReason: answer.decisionReason ?? { ...base, layer: 'prompt', reason: `refused at the prompt (${base.reason})` } };
  }
  // A handler that answers `ask` again decided nothing: fail closed.
  return denyFrom(ask, 'prompt', `the prompt gave no answer (${base.reason})`);
}

/** Claude Code's words for a call nobody was there to approve. */
export function notGrantedMessage(what: NonNullable<DecisionTrace['notGranted']>): string {
  const verb = what.access === 'read' ? 'read from' : what.access === 'write' ? 'write to' : 'use';
  return `Claude requested permissions to ${verb} ${what.what}, but you haven't granted it yet.`;
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
