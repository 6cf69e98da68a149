/**
 * The pipeline's side of the hooks protocol: the event it fires, the messages hook output becomes, the
 * PermissionRequest bridge (hooks answer the prompt the permission engine would show), and the check of a PostToolUse
 * hook's `updatedToolOutput` (a string, or something of the tool's output type — never silently accepted junk).
 */
import type { HookRunner, HookToolEvent, PostToolUseOutcome, PreToolUseOutcome } from '../hooks/types.js';
import type { PermissionDecision, PermissionUpdate } from '../tool/permission-types.js';
import { parsePermissionUpdates, savePermissionUpdates } from '../permissions/permission-updates.js';
import { textToolResult } from '../tool/tool-result.js';
import type { AnyTool, ToolResultBlockParam } from '../tool/tool.js';
import type { PermissionPromptHandler, ToolUseContext } from '../tool/tool-use-context.js';
import { classifyToolError } from './errors.js';
import { systemReminder } from './messages.js';
import type { OutcomeBuilder } from './outcome.js';

export function hookEvent(tool: AnyTool, toolInput: Record<string, unknown>, toolUseId: string, context: ToolUseContext): HookToolEvent {
  const state = context.getAppState();
  return {
    sessionId: context.options.sessionId,
    cwd: state.cwd,
    permissionMode: state.toolPermissionContext.mode,
    toolName: tool.name,
    toolInput,
    toolUseId,
    projectDir: state.toolPermissionContext.projectDir,
    agentId: context.agentId,
    agentType: context.agentType,
    tool,
    permissionContext: state.toolPermissionContext,
  };
}

type HookReport = Pick<PreToolUseOutcome, 'additionalContext' | 'systemMessages' | 'nonBlockingErrors'>;

/** Hook context for the model (system reminders), system messages for both, errors for a person. */
export function collectHookReport(acc: OutcomeBuilder, event: string, toolName: string, report: HookReport): void {
  for (const text of report.additionalContext) {
    acc.newMessages.push(systemReminder(`${event}:${toolName} hook additional context: ${text}`));
  }
  for (const text of report.systemMessages) {
    acc.newMessages.push(systemReminder(`${event}:${toolName} hook message: ${text}`));
    acc.userNotices.push(`${event}:${toolName} hook: ${text}`);
  }
  for (const text of report.nonBlockingErrors) acc.userNotices.push(`${event}:${toolName} hook error: ${text}`);
}

/**
 * A context whose permission prompt first asks the PermissionRequest hooks. A hook's allow or deny answers the prompt;
 * otherwise the real prompt (if any) is shown; headless, the engine's `ask` stands and becomes a denial naming the
 * rule to add. Only built when such hooks exist, so the engine's headless path is untouched otherwise.
 */
export function withPermissionRequestHooks(
  context: ToolUseContext,
  hooks: HookRunner,
  tool: AnyTool,
  toolUseId: string,
  onNonBlockingErrors: (errors: readonly string[]) => void,
): ToolUseContext {
  const fallback = context.ui?.requestPermission;
  const requestPermission: PermissionPromptHandler = async (request) => {
    const outcome = await hooks.permissionRequest(
      { ...hookEvent(tool, request.input, toolUseId, context), permissionSuggestions: [...(request.ask.suggestions ?? [])] },
      request.signal,
    );
    onNonBlockingErrors(outcome.nonBlockingErrors);
    const decision = outcome.decision;
    if (decision?.behavior === 'allow') {
      const updates = outcome.updatedPermissions ? await applyHookPermissionUpdates(context, outcome.updatedPermissions, onNonBlockingErrors) : [];
      return {
        behavior: 'allow',
        updatedInput: decision.updatedInput,
        decisionReason: { layer: 'hook', reason: 'a PermissionRequest hook allowed the call' },
        ...(updates.length > 0 ? { updatedPermissions: updates } : {}),
      } satisfies PermissionDecision;
    }
    if (decision?.behavior === 'deny') {
      if (decision.interrupt === true) context.abortController.abort('permission_request_hook_interrupt');
      return {
        behavior: 'deny',
        message: decision.message ?? 'Denied by a PermissionRequest hook.',
        decisionReason: { layer: 'hook', reason: 'a PermissionRequest hook denied the call' },
      } satisfies PermissionDecision;
    }
    if (fallback) return fallback(request);
    return request.ask;
  };
  return { ...context, ui: { ...context.ui, requestPermission } };
}

/**
 * A PermissionRequest hook's `updatedPermissions`: checked, applied to the session's permission context at once, and
 * written to settings files through the `permissionUpdates` service when the runtime provides one (the same path a
 * person's "allow with a rule" answer takes). Malformed entries are reported, never half-applied.
 */
export async function applyHookPermissionUpdates(
  context: ToolUseContext,
  raw: readonly unknown[],
  report: (errors: readonly string[]) => void,
): Promise<PermissionUpdate[]> {
  const { updates, errors } = parsePermissionUpdates(raw);
  if (updates.length > 0) errors.push(...(await savePermissionUpdates(context, context.services.permissionUpdates, updates)).errors);
  if (errors.length > 0) report(errors.map((e) => `PermissionRequest hook updatedPermissions: ${e}`));
  return updates;
}

/** The message of a PostToolUse `decision: "block"`: shown next to the result, which the model still sees. */
export function postToolUseBlockMessage(toolName: string, outcome: PostToolUseOutcome) {
  return outcome.block ? systemReminder(`PostToolUse:${toolName} hook blocking feedback: ${outcome.block.reason}`) : undefined;
}

export type UpdatedOutputCheck = { ok: true; block: ToolResultBlockParam; data: unknown } | { ok: false; why: string };

/**
 * Accepts a hook's replacement output when it is a string (shown as it is) or of the tool's output type: the tool's
 * `outputSchema` when it has one, otherwise the shape of the original output (same kind of value, and for an object
 * the same keys with values of the same types). Then it must map through the tool's own mapping.
 */
export function checkUpdatedToolOutput(tool: AnyTool, original: unknown, updated: unknown, toolUseId: string): UpdatedOutputCheck {
  if (typeof updated === 'string') return { ok: true, block: textToolResult(toolUseId, updated), data: updated };
  if (tool.outputSchema) {
    const parsed = tool.outputSchema.safeParse(updated);
    if (!parsed.success) return { ok: false, why: `it does not match ${tool.name}'s output schema (${parsed.error.issues[0]?.message ?? 'invalid'})` };
    updated = parsed.data;
  } else {
    const why = shapeMismatch(original, updated);
    if (why) return { ok: false, why };
  }
  try {
    return { ok: true, block: tool.mapToolResultToToolResultBlockParam(updated, toolUseId), data: updated };
  } catch {
    return { ok: false, why: `${tool.name} cannot format it as a result` };
  }
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function shapeMismatch(original: unknown, updated: unknown): string | undefined {
  if (kind(original) !== kind(updated)) return `expected a string or ${kind(original)} like the tool's output, got ${kind(updated)}`;
  if (kind(original) !== 'object') return undefined;
  const o = original as Record<string, unknown>;
  const u = updated as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (o[key] === undefined) continue;
    if (!Object.hasOwn(u, key)) return `the field "${key}" of the tool's output is missing`;
    if (kind(o[key]) !== kind(u[key])) return `the field "${key}" should be ${kind(o[key])}, got ${kind(u[key])}`;
  }
  for (const key of Object.keys(u)) {
    if (!Object.hasOwn(o, key)) return `the field "${key}" is not part of the tool's output`;
  }
  return undefined;
}

/** PostToolUseFailure hooks, when a call failed or its tool reported an error. Their failure is a notice, never a crash. */
export async function runFailureHooks(
  acc: OutcomeBuilder,
  hooks: HookRunner | undefined,
  tool: AnyTool,
  observableInput: Record<string, unknown>,
  toolUseId: string,
  context: ToolUseContext,
  error: string,
  durationMs: number,
): Promise<void> {
  if (!hooks?.hasHooks('PostToolUseFailure', tool.name)) return;
  const signal = context.abortController.signal;
  try {
    const outcome = await hooks.postToolUseFailure(
      { ...hookEvent(tool, observableInput, toolUseId, context), error, isInterrupt: signal.aborted, durationMs },
      signal,
    );
    collectHookReport(acc, 'PostToolUseFailure', tool.name, outcome);
  } catch (hookError) {
    acc.userNotices.push(`PostToolUseFailure:${tool.name} hooks failed (${classifyToolError(hookError)})`);
  }
}
