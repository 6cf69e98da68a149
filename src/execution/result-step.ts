/**
 * Step 11 of the pipeline: the tool's own mapping of its output to a tool_result, redaction, the per-tool size limit
 * (an oversized result goes to disk and a preview stands in for it), and the record the conversation budget keeps.
 * Synchronous when the result fits its limit — the common case costs no extra microtask turns.
 */
import type { AnyTool, ToolResultBlockParam } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { applyResultSizeLimit, effectiveMaxResultSizeChars, fitsResultSizeLimit } from './budget.js';
import { classifyToolError, errorMessageForModel, TOOL_ERROR_CLASSES as C } from './errors.js';
import type { OutcomeBuilder } from './outcome.js';
import type { SecretRedactor } from './redaction.js';

export type Budgeted =
  | { ok: true; block: ToolResultBlockParam; persistedPath?: string }
  | { ok: false; message: string; errorClass: string };

/** Synchronous when the result fits its limit (the common case): no microtask turns for a result that stays as it is. */
export function mapAndBudget(
  tool: AnyTool,
  data: unknown,
  toolUseId: string,
  context: ToolUseContext,
  redactor: SecretRedactor | undefined,
): Budgeted | Promise<Budgeted> {
  let block: ToolResultBlockParam;
  try {
    block = tool.mapToolResultToToolResultBlockParam(data, toolUseId);
    if (block === null || typeof block !== 'object') throw new TypeError('no block');
  } catch (error) {
    return { ok: false, message: `${tool.name} ran, but its result could not be formatted (${classifyToolError(error)}).`, errorClass: C.resultMapping };
  }
  // Redacted before the budget step, so a persisted oversized result holds no secret either.
  return budgetBlock(tool, redact(redactor, { ...block, tool_use_id: toolUseId }), context);
}

export function redact(redactor: SecretRedactor | undefined, block: ToolResultBlockParam): ToolResultBlockParam {
  return redactor === undefined ? block : redactor.redactBlock(block);
}

export function budgetBlock(tool: AnyTool, block: ToolResultBlockParam, context: ToolUseContext): Budgeted | Promise<Budgeted> {
  try {
    if (fitsResultSizeLimit(block, tool, context)) return { ok: true, block, persistedPath: undefined };
  } catch {
    // the full path below meets the same failure and words it
  }
  return budgetBlockAsync(tool, block, context);
}

async function budgetBlockAsync(tool: AnyTool, block: ToolResultBlockParam, context: ToolUseContext): Promise<Budgeted> {
  try {
    const limited = await applyResultSizeLimit(block, tool, context);
    return { ok: true, block: limited.block, persistedPath: limited.persistedPath };
  } catch (error) {
    return { ok: false, message: `${tool.name} ran, but its output was too large and ${errorMessageForModel(error)}`, errorClass: classifyToolError(error) };
  }
}

export async function recordForConversationBudget(
  acc: OutcomeBuilder,
  tool: AnyTool,
  budgeted: Extract<Budgeted, { ok: true }>,
  toolUseId: string,
  context: ToolUseContext,
): Promise<void> {
  const state = context.contentReplacementState;
  if (!state?.record) return;
  const replaceable = Number.isFinite(effectiveMaxResultSizeChars(tool, context)) && budgeted.persistedPath === undefined;
  state.record({ toolUseId, toolName: tool.name, block: budgeted.block, replaceable });
  try {
    await state.enforce?.(context.options.sessionDir, new Set([toolUseId]));
  } catch (error) {
    acc.userNotices.push(`conversation tool-result budget: could not replace old results (${classifyToolError(error)})`);
  }
}

