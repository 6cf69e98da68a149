/**
 * `canUseTool` → the runtime's `onPermissionRequest`. The call is described as the Agent SDK describes it (the tool's
 * name and input, suggestions as permission updates, the id of the call and of the sub-agent that makes it), and the
 * answer is read in the Agent SDK's shapes: allow (with `updatedInput`, `updatedPermissions`) or deny (with `message`
 * and `interrupt`). A callback that throws or answers something else denies the call (fail closed). `interrupt: true`
 * also ends the user turn (`onInterrupt`).
 */
import { parsePermissionUpdates } from '../permissions/permission-updates.js';
import { tryParsePermissionRule } from '../permissions/permission-rule.js';
import { describePreview } from '../permissions/preview.js';
import { describeRisk } from '../permissions/risk.js';
import type { PermissionAnswer, RuntimePermissionRequest } from '../agent/types.js';
import type { PermissionUpdate as SessionPermissionUpdate } from '../tool/permission-types.js';
import type { CanUseTool, PermissionUpdate } from './options.js';

/** What the model is told when the answer is not one of the two shapes (the Agent SDK 0.3.328's text, recorded). */
export const INVALID_ANSWER =
  "The canUseTool callback returned an invalid permission result. Expected {behavior: 'allow', updatedInput?: object} or {behavior: 'deny', message: string}. updatedPermissions may hold at most 4096 updates, rules and directories in all.";

/** What the model is told when the program denies and interrupts (the Agent SDK 0.3.328's text, recorded). */
export const REJECTED_AND_STOPPED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

export interface CanUseToolBridge {
  readonly canUseTool: CanUseTool;
  /** `updatedPermissions`, checked: applied (and saved where they say) by the session's one applier; its problems. */
  readonly applyUpdates: (updates: readonly SessionPermissionUpdate[]) => Promise<readonly string[]>;
  /** `deny` with `interrupt: true`: the turn ends. */
  readonly onInterrupt: () => void;
  /** A problem with an answer (an update that could not be applied) for the program's `stderr`. */
  readonly warn: (text: string) => void;
  /** Waits until the program was handed the assistant message with the call (delivery.ts). */
  readonly delivered?: (toolUseId: string, signal: AbortSignal) => Promise<void>;
}

export function permissionHandler(bridge: CanUseToolBridge): (request: RuntimePermissionRequest) => Promise<PermissionAnswer> {
  return async (request) => {
    let answer: unknown;
    try {
      await bridge.delivered?.(request.toolUseID, request.signal);
      answer = await bridge.canUseTool(request.tool.name, { ...request.input }, {
        signal: request.signal,
        // "Always allow" of a destructive call is not offered: a host that wants it sends its own updatedPermissions
        // (the second step); the risk is in the description.
        suggestions: request.risk?.destructive === true ? [] : suggestionsFor(request),
        ...(descriptionOf(request) !== undefined ? { description: descriptionOf(request) } : {}),
        ...(request.ask.decisionReason?.reason !== undefined ? { decisionReason: request.ask.decisionReason.reason } : {}),
        ...(blockedPathOf(request) !== undefined ? { blockedPath: blockedPathOf(request) } : {}),
        toolUseID: request.toolUseID,
        ...(request.agentId !== undefined ? { agentID: request.agentId } : {}),
        displayName: request.tool.userFacingName(request.input as never) || request.tool.name,
      });
    } catch (error) {
      return { behavior: 'deny', message: `Permission denied: canUseTool failed (${error instanceof Error ? error.message : String(error)}).` };
    }
    if (answer === null || typeof answer !== 'object') return { behavior: 'deny', message: INVALID_ANSWER };
    const a = answer as Record<string, unknown>;
    if (a.behavior === 'deny') {
      // Interrupting: the model is told to stop and wait, as in the Agent SDK (the program's message is not shown).
      if (a.interrupt === true) {
        bridge.onInterrupt();
        return { behavior: 'deny', message: REJECTED_AND_STOPPED, interrupt: true };
      }
      return { behavior: 'deny', message: typeof a.message === 'string' ? a.message : INVALID_ANSWER };
    }
    if (a.behavior !== 'allow') return { behavior: 'deny', message: INVALID_ANSWER };
    if (a.updatedInput !== undefined && (a.updatedInput === null || typeof a.updatedInput !== 'object' || Array.isArray(a.updatedInput))) {
      return { behavior: 'deny', message: INVALID_ANSWER };
    }
    if (Array.isArray(a.updatedPermissions) && a.updatedPermissions.length > 0) await applyUpdates(bridge, a.updatedPermissions);
    // The program changed the input, not a person: the model is not told "the user modified" it, as in the Agent SDK.
    return { behavior: 'allow', scope: 'once', ...(a.updatedInput !== undefined ? { updatedInput: a.updatedInput as Record<string, unknown>, userModified: false } : {}) };
  };
}

/** An answer's `updatedPermissions`: checked, then applied to the session and written to settings files where they say. */
async function applyUpdates(bridge: CanUseToolBridge, raw: readonly unknown[]): Promise<void> {
  const { updates, errors } = parsePermissionUpdates(raw);
  if (updates.length > 0) errors.push(...(await bridge.applyUpdates(updates)));
  for (const e of errors) bridge.warn(`canUseTool updatedPermissions: ${e}`);
}

/** What "always allow" would mean for this call: the edit mode for file edits, else the narrowest rules. */
function suggestionsFor(request: RuntimePermissionRequest): PermissionUpdate[] {
  const out: PermissionUpdate[] = [];
  if (request.tool.permissionTraits?.kind === 'write') out.push({ type: 'setMode', mode: 'acceptEdits', destination: 'session' });
  const rules = request.suggestedRules.flatMap((text) => {
    const parsed = tryParsePermissionRule(text);
    return parsed.ok ? [{ toolName: parsed.value.toolName, ...(parsed.value.ruleContent !== undefined ? { ruleContent: parsed.value.ruleContent } : {}) }] : [];
  });
  if (rules.length > 0) out.push({ type: 'addRules', rules, behavior: 'allow', destination: 'localSettings' });
  return out;
}

/** The risk in words and, when the tool prepared one, what the call will do (a simulated edit's diff): what is approved. */
function descriptionOf(request: RuntimePermissionRequest): string | undefined {
  const parts = [request.risk !== undefined ? describeRisk(request.risk) : undefined, request.preview !== undefined ? describePreview(request.preview) : undefined];
  const text = parts.filter((p) => p !== undefined).join('\n');
  return text === '' ? undefined : text;
}

function blockedPathOf(request: RuntimePermissionRequest): string | undefined {
  const field = request.tool.permissionTraits?.pathField;
  const value = field !== undefined ? request.input[field] : undefined;
  return typeof value === 'string' && request.ask.decisionReason?.layer === 'safetyCheck' ? value : undefined;
}
