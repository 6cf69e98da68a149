/**
 * One tool call, top to bottom. `checkPermissionsAndCallTool()` reads as the seeds' fourteen steps, in order:
 *   1 lookup · 2 abort check · 3 schema · 4 validateInput · 5 speculative classifier · 6 backfill ·
 *   7 PreToolUse hooks · 8 permission · 9 denial + PermissionDenied hooks · 10 call() · 11 result budget ·
 *   12 PostToolUse hooks · 13 newMessages · 14 error classification.
 * Every path out returns exactly one tool_result for the tool_use id; `runToolUse()` adds a last safety net so that
 * not even a bug in these steps can leave an id without its answer.
 *
 * Three copies of the input, on purpose: the API original (`block.input`, never written to — transcripts and the
 * prompt cache depend on it), the backfilled observable clone that hooks and the permission engine see, and the input
 * `call()` runs with (the parsed original, or what a hook or the permission layer replaced it with).
 */
import type { HookRunner } from '../hooks/types.js';
import { isPathTool } from '../permissions/tool-traits.js';
import { PathChecks } from '../tool/path-checks.js';
import { isDeferredTool } from '../tool/api-format.js';
import { isUnwrappedToolError, toolResultText } from '../tool/tool-result.js';
import type { PermissionDecision, PermissionPreview } from '../tool/permission-types.js';
import type {
  AnyTool,
  AssistantMessage,
  CanUseToolFn,
  MessageParam,
  ToolProgress,
  ToolResult,
  ToolUseBlock,
  Tools,
} from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { localToolCallBackend, type ToolCallBackend } from './backend.js';
import { classifyToolError, emitToolEvent, errorMessageForModel, TOOL_ERROR_CLASSES as C, type ToolEventSink } from './errors.js';
import {
  checkUpdatedToolOutput,
  runFailureHooks,
  collectHookReport,
  hookEvent,
  postToolUseBlockMessage,
  withPermissionRequestHooks,
} from './hook-steps.js';
import { prepareSnapshot, prepareToolUse, type PreparedToolUse } from './prepared-tool-use.js';
import { whenToolLoaded } from '../tool/module-load.js';
import { budgetBlock, mapAndBudget, recordForConversationBudget, redact } from './result-step.js';
import { cloneInput, parseToolInput, sameTopLevel, withDeferredHint } from './input-validation.js';
import { abortedBeforeStartMessage, systemReminder, unknownToolMessage } from './messages.js';
import { redactorFor } from './redaction.js';
import { OutcomeBuilder, telemetryToolName, type ToolUseOutcome } from './outcome.js';
import { emitDecisionEvent } from './telemetry-events.js';
import { hookDecisionToPermission, unansweredAskMessage } from './permission-messages.js';

export interface PipelineOptions {
  /** Where `call()` runs (default: in this process). */
  readonly backend?: ToolCallBackend;
  /** Receives start/decision/end events; off when absent. */
  readonly eventSink?: ToolEventSink;
  /** Progress the tool reports while it runs, tagged with this call's tool_use id. */
  readonly onProgress?: (progress: ToolProgress) => void;
  /** Tools outside the pool that old transcripts may still name (renamed tools, by alias). */
  readonly fallbackTools?: Tools;
  /**
   * Step 5: starts an automatic safety classifier early, in parallel with hooks (auto mode). What it returns ends the
   * early classification unless the permission step took it: called once the permission step is behind, or when the
   * call ends before it (src/permissions/speculative-classifier.ts).
   */
  readonly startSpeculativeClassifier?: (tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext) => (() => void) | void;
  /**
   * Step 10: awaited before a call that is not read-only runs (its `isReadOnly` trait, never its name): the session's
   * file checkpoint (issue 35). A failure is a notice, not a refusal.
   */
  readonly beforeMutatingCall?: (toolUseId: string) => Promise<void>;
}

const NO_OPTIONS: PipelineOptions = Object.freeze({});

/**
 * Runs one tool_use block through the pipeline; never throws, always exactly one tool_result. The block is read once
 * here (a block the executor prepared is recognised and not read again).
 */
export function runToolUse(
  block: ToolUseBlock,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  options: PipelineOptions = NO_OPTIONS,
): Promise<ToolUseOutcome> {
  const prepared = prepareToolUse(block, context.options.tools, options.fallbackTools);
  if (prepared.kind !== 'call') {
    const why = prepared.kind === 'skip' ? `it is a \`${prepared.type}\` block, not a tool_use` : prepared.reason;
    const rejected = new OutcomeBuilder('', undefined, performance.now(), options.eventSink);
    return Promise.resolve(rejected.fail('validation', `This content block cannot be run: ${why}.`, C.invalidBlock));
  }
  let { call } = prepared;
  const callContext = context.toolUseId === call.block.id ? context : { ...context, toolUseId: call.block.id };
  // A built-in whose module has not loaded (registry/lazy-tool.ts): its input is read again once it has.
  const loading = whenToolLoaded(call.tool);
  if (loading) {
    const again = () => {
      call = prepareSnapshot(call.block, undefined, context.options.tools, options.fallbackTools);
      return runPreparedToolUse(call, assistantMessage, canUseTool, callContext, options);
    };
    return loading.then(again, again);
  }
  return runPreparedToolUse(call, assistantMessage, canUseTool, callContext, options);
}

/** The same for a call already prepared (the executor's path). */
export function runPreparedToolUse(
  call: PreparedToolUse,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  options: PipelineOptions = NO_OPTIONS,
): Promise<ToolUseOutcome> {
  // Not an async function wrapping another: one promise per call instead of two. The async steps cannot throw
  // synchronously, so the rejection handler is the whole safety net.
  return checkPermissionsAndCallTool(call, assistantMessage, canUseTool, context, options).catch((error: unknown) => {
    // Each step handles its own failures; arriving here means a bug in the pipeline. Still one answer, and no run.
    const acc = new OutcomeBuilder(call.block.id, call.block.name, performance.now(), options.eventSink);
    try {
      acc.redactor = redactorFor(context);
    } catch {
      // the message below names no input; nothing to hide
    }
    return acc.fail('executor', `Internal error while handling this tool call: ${errorMessageForModel(error)}`, classifyToolError(error));
  });
}

export async function checkPermissionsAndCallTool(
  call: PreparedToolUse,
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  options: PipelineOptions = NO_OPTIONS,
): Promise<ToolUseOutcome> {
  const sink = options.eventSink;
  const requested = call.block;
  const toolUseId = requested.id;
  const acc = new OutcomeBuilder(toolUseId, requested.name, performance.now(), sink);
  acc.redactor = redactorFor(context);
  if (call.problem !== undefined) return acc.fail('validation', call.problem, call.problemClass ?? C.invalidBlock);
  const signal = context.abortController.signal;
  const hooks: HookRunner | undefined = context.services.hooks;

  // 1 — Lookup (done once, when the call was prepared): by name, then alias, then the tools of former sessions.
  const tool = call.tool;
  if (!tool || !call.parsed) return acc.fail('lookup', unknownToolMessage(requested.name), C.unknownTool);
  acc.tool = tool;
  // Telemetry attributes are built only when someone listens: this path runs for every call.
  if (sink) emitToolEvent(sink, 'tool.start', { 'tool.name': telemetryToolName(tool), 'tool.use_id': toolUseId });

  // 2 — Abort check: a call queued before the interrupt reached it does not start.
  if (signal.aborted) return acc.fail('abort', abortedBeforeStartMessage(signal.reason), C.aborted);

  // 3 — Schema: shape checks, Zod, internal fields stripped; a deferred tool not yet loaded gets the ToolSearch hint.
  const deferredNotLoaded = isDeferredTool(tool, context.options.tools) && context.options.loadedDeferredTools?.has(tool.name) !== true;
  const parsed = deferredNotLoaded ? withDeferredHint(call.parsed, tool) : call.parsed;
  if (!parsed.ok) return acc.fail('validation', parsed.message, parsed.errorClass);
  let callInput = parsed.input;

  // 4 — Semantic validation by the tool itself.
  if (tool.validateInput) {
    let verdict: Awaited<ReturnType<NonNullable<AnyTool['validateInput']>>>;
    try {
      verdict = await tool.validateInput(callInput, context);
    } catch (error) {
      return acc.fail('validation', `${tool.name} could not validate this input: ${errorMessageForModel(error)}`, classifyToolError(error));
    }
    if (!verdict.result) return acc.fail('validation', verdict.message, C.validateInput, {}, verdict.unwrapped === true);
  }

  // 5 — Speculative classifier start (optional; its verdict is the permission engine's business). Whatever path the
  // call takes from here, an early classification the engine did not use is ended (no request is left running).
  let endSpeculation: (() => void) | void = undefined;
  try {
    endSpeculation = options.startSpeculativeClassifier?.(tool, callInput, context);
  } catch {
    // An early start is an optimisation; the engine asks again if it must.
  }
  if (endSpeculation) acc.beforeSeal = endSpeculation;

  // 6 — Backfill: the clone hooks and permissions see, with derived fields (absolute paths).
  let observableInput = backfill(tool, callInput, context);
  if (!observableInput) return acc.fail('validation', `${tool.name} could not prepare this input for the permission check`, C.inputValidation);

  // 7 — PreToolUse hooks: may decide, rewrite the input, add context, or stop everything.
  let hookDecision: PermissionDecision | undefined;
  if (hooks?.hasHooks('PreToolUse', tool.name)) {
    let pre: Awaited<ReturnType<HookRunner['preToolUse']>>;
    try {
      pre = await hooks.preToolUse(hookEvent(tool, observableInput, toolUseId, context), signal);
    } catch (error) {
      return acc.fail('hook', `PreToolUse hooks could not be run (${classifyToolError(error)}), so the call was not made.`, C.hookBlocked);
    }
    collectHookReport(acc, 'PreToolUse', tool.name, pre);
    if (pre.preventContinuation) {
      const why = pre.preventContinuation.stopReason ? `: ${pre.preventContinuation.stopReason}` : '';
      return acc.fail('hook', `A PreToolUse hook stopped the session${why}. The call was not made.`, C.hookStopped, {
        preventContinuation: pre.preventContinuation,
      });
    }
    if (pre.decision?.behavior === 'defer') {
      const why = pre.decision.reason ? ` (${pre.decision.reason})` : '';
      return acc.fail('hook', `A PreToolUse hook deferred this call${why}: it was not run and can be resumed later.`, C.hookDeferred, {
        deferred: true,
      });
    }
    if (pre.updatedInput !== undefined) {
      const updated = parseToolInput(tool, pre.updatedInput);
      if (!updated.ok) {
        return acc.fail('hook', `A PreToolUse hook (${hookSource(pre)}) rewrote the input into one ${tool.name} does not accept:\n${updated.message}`, C.inputValidation);
      }
      callInput = updated.input;
      observableInput = backfill(tool, callInput, context);
      if (!observableInput) return acc.fail('validation', `${tool.name} could not prepare this input for the permission check`, C.inputValidation);
    }
    if (pre.decision) hookDecision = hookDecisionToPermission(pre.decision, callInput, tool.name);
  }

  // 8 — Permission: a hook's deny stands; its allow or ask goes to the engine, which still applies deny and ask rules.
  // A path tool's call gets a record of the real paths its decision judged: call() binds what it opens to them.
  if (isPathTool(tool)) context = { ...context, pathChecks: new PathChecks() };
  let decision: PermissionDecision;
  if (hookDecision?.behavior === 'deny') {
    decision = hookDecision;
  } else {
    const permissionContext = hooks?.hasHooks('PermissionRequest', tool.name)
      ? withPermissionRequestHooks(context, hooks, tool, toolUseId, (errors) => collectHookReport(acc, 'PermissionRequest', tool.name, { additionalContext: [], systemMessages: [], nonBlockingErrors: [...errors] }))
      : context;
    try {
      decision = await canUseTool(tool, observableInput, permissionContext, assistantMessage, toolUseId, hookDecision);
    } catch (error) {
      decision = {
        behavior: 'deny',
        message: `The permission check failed (${classifyToolError(error)}), so the call was not made.`,
        decisionReason: { layer: 'toolCheck', reason: 'the permission check threw' },
      };
    }
  }
  endSpeculation?.(); // the permission step is behind: an early classification it did not take is not needed
  if (sink) emitDecisionEvent(sink, tool, toolUseId, decision, observableInput); // telemetry: the decision, its layer, rule and answer

  // 9 — Denial: counted (for modes that give up after repeated denials), the reason (naming the rule), then
  // PermissionDenied hooks, which may say a retry is worth it.
  const denials = context.localDenialTracking;
  if (decision.behavior !== 'allow') {
    denials.consecutiveDenials++;
    denials.totalDenials++;
    let message = decision.behavior === 'ask' ? unansweredAskMessage(tool, decision) : decision.message;
    if (hooks?.hasHooks('PermissionDenied', tool.name)) {
      try {
        const denied = await hooks.permissionDenied({ ...hookEvent(tool, observableInput, toolUseId, context), reason: message }, signal);
        collectHookReport(acc, 'PermissionDenied', tool.name, { ...denied, systemMessages: [] });
        if (denied.retry === true) message += '\nA PermissionDenied hook says this call may be retried.';
      } catch (error) {
        acc.userNotices.push(`PermissionDenied:${tool.name} hooks failed (${classifyToolError(error)})`);
      }
    }
    // A denial reads as Claude Code's do: the message itself, marked as an error, without <tool_use_error> around it.
    return acc.seal({ type: 'tool_result', tool_use_id: toolUseId, content: message, is_error: true }, 'permission', C.permissionDenied, { decision });
  }
  denials.consecutiveDenials = 0;
  // A person (or a permission handler) may answer with a changed input: it goes through the schema like the model's,
  // and a tool that reports edits tells the model the person changed them (`context.inputModifiedByUser`).
  let inputModifiedByUser = false;
  if (decision.updatedInput && !sameTopLevel(decision.updatedInput, observableInput)) {
    const updated = parseToolInput(tool, decision.updatedInput);
    if (!updated.ok) return acc.fail('permission', `The input given with the approval is not one ${tool.name} accepts:\n${updated.message}`, C.inputValidation, { decision });
    callInput = updated.input;
    inputModifiedByUser = decision.userModified === true;
  }

  // 10 — call(), through the backend, with the original (or hook/permission-updated) input — unless the turn was
  // cancelled while hooks ran or a prompt waited.
  if (signal.aborted) return acc.fail('abort', abortedBeforeStartMessage(signal.reason), C.aborted, { decision });
  if (options.beforeMutatingCall && !readOnlyCall(tool, callInput)) {
    try {
      await options.beforeMutatingCall(toolUseId);
    } catch (error) {
      acc.userNotices.push(`no file checkpoint before this call: ${errorMessageForModel(error)}`);
    }
  }
  const callStarted = hooks ? performance.now() : 0; // only hooks are told how long the call took
  let output: ToolResult<unknown>;
  try {
    output = await (options.backend ?? localToolCallBackend).call({
      tool,
      input: callInput,
      context: withApproval(context, inputModifiedByUser, decision.approvedPreview),
      canUseTool,
      assistantMessage,
      toolUseId,
      onProgress: options.onProgress ? (p) => options.onProgress?.({ toolUseID: toolUseId, data: p?.data ?? p }) : undefined,
    });
    if (output === null || typeof output !== 'object') throw new TypeError(`${tool.name} returned no result`);
  } catch (error) {
    const message = errorMessageForModel(error);
    acc.redactor = redactorFor(context); // secrets registered during the call (a refreshed token) are hidden in its error too
    await runFailureHooks(acc, hooks, tool, observableInput, toolUseId, context, message, performance.now() - callStarted);
    return acc.fail('call', message, classifyToolError(error), { decision, input: callInput }, isUnwrappedToolError(error));
  }

  // 11 — Result budget: the tool's mapping, then the per-tool size limit (oversized text goes to disk). The redactor
  // is looked up again: the call may have registered secrets (Bash's scrub list) its own output must not show.
  acc.redactor = redactorFor(context);
  let data = output.data;
  const mapped = mapAndBudget(tool, data, toolUseId, context, acc.redactor);
  let budgeted = mapped instanceof Promise ? await mapped : mapped;
  if (!budgeted.ok) return acc.fail('budget', budgeted.message, budgeted.errorClass, { decision, input: callInput });

  // 12 — PostToolUse hooks (PostToolUseFailure when the tool reported an error): feedback, context, output rewrite.
  const afterHooks: MessageParam[] = [];
  let postStop: { stopReason?: string } | undefined;
  if (budgeted.block.is_error === true) {
    await runFailureHooks(acc, hooks, tool, observableInput, toolUseId, context, toolResultText(budgeted.block), performance.now() - callStarted);
  } else if (hooks?.hasHooks('PostToolUse', tool.name)) {
    try {
      const post = await hooks.postToolUse(
        { ...hookEvent(tool, observableInput, toolUseId, context), toolResponse: data, durationMs: performance.now() - callStarted },
        signal,
      );
      if (post.updatedToolOutput !== undefined) {
        const check = checkUpdatedToolOutput(tool, data, post.updatedToolOutput, toolUseId);
        const rebudgeted = check.ok ? await budgetBlock(tool, redact(acc.redactor, check.block), context) : undefined;
        if (check.ok && rebudgeted?.ok) {
          data = check.data;
          budgeted = rebudgeted;
        } else {
          const why = check.ok ? (rebudgeted && !rebudgeted.ok ? rebudgeted.message : 'it could not be stored') : check.why;
          afterHooks.push(systemReminder(`PostToolUse:${tool.name} hook's updatedToolOutput was rejected (${why}); the tool's own output was kept.`));
          acc.userNotices.push(`PostToolUse:${tool.name} hook: updatedToolOutput rejected (${why})`);
        }
      }
      const blockMessage = postToolUseBlockMessage(tool.name, post);
      if (blockMessage) afterHooks.push(blockMessage);
      const before = acc.newMessages.length;
      collectHookReport(acc, 'PostToolUse', tool.name, post);
      afterHooks.push(...acc.newMessages.splice(before));
      postStop = post.preventContinuation;
    } catch (error) {
      acc.userNotices.push(`PostToolUse:${tool.name} hooks failed (${classifyToolError(error)})`);
    }
  }
  if (context.contentReplacementState?.record) await recordForConversationBudget(acc, tool, budgeted, toolUseId, context);

  // 13 — newMessages: hook context before the call, the tool's own messages, then what PostToolUse hooks added.
  if (Array.isArray(output.newMessages)) acc.newMessages.push(...output.newMessages);
  if (afterHooks.length > 0) acc.newMessages.push(...afterHooks);

  // 14 — Classification and the end event (sealed by the builder).
  return acc.seal(budgeted.block, 'completed', budgeted.block.is_error === true ? C.toolError : undefined, {
    contextModifier: typeof output.contextModifier === 'function' ? output.contextModifier : undefined,
    decision,
    input: callInput,
    persistedPath: budgeted.persistedPath,
    preventContinuation: postStop,
    output: data,
    interrupted: output.interrupted === true ? true : undefined,
    ...(output.mcpMeta !== undefined && typeof output.mcpMeta === 'object' ? { mcpMeta: output.mcpMeta } : {}),
  });
}

/** Step 6's clone; `undefined` if the tool's backfill throws (fail closed: a permission check on half an input is unsafe). */
/** A tool whose read-only trait throws counts as one that changes things. */
function readOnlyCall(tool: AnyTool, input: Record<string, unknown>): boolean {
  try {
    return tool.isReadOnly(input as never) === true;
  } catch {
    return false;
  }
}

function backfill(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): Record<string, unknown> | undefined {
  const clone = cloneInput(input);
  if (!tool.backfillObservableInput) return clone;
  try {
    tool.backfillObservableInput(clone, context);
    return clone;
  } catch {
    return undefined;
  }
}

function hookSource(pre: { decision?: { source: string } }): string {
  return pre.decision?.source ?? 'updatedInput';
}

/** call()'s context: whether a person changed the input, and the preview they approved (the gate's, never the model's). */
function withApproval(context: ToolUseContext, inputModifiedByUser: boolean, approvedPreview: PermissionPreview | undefined): ToolUseContext {
  if (!inputModifiedByUser && approvedPreview === undefined) return context;
  return { ...context, ...(inputModifiedByUser ? { inputModifiedByUser } : {}), ...(approvedPreview !== undefined ? { approvedPreview } : {}) };
}
