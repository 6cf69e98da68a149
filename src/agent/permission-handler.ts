/**
 * The bridge between the engine's permission prompt (`context.ui.requestPermission`, which wants a decision) and the
 * runtime's `onPermissionRequest` (which gives an answer with a scope):
 * - `once`: allowed, this call only (with the person's `updatedInput`, if any);
 * - `session`: the rules (or the suggested ones) are added to the session's permission context, then allowed;
 * - `rule`: the rules are written to a settings file by `persistRules` and added to the session; without a writer the
 *   answer fails closed (denied, saying why);
 * - `deny`: refused; `interrupt: true` also stops the run the call belongs to.
 * Sub-agents share this one handler: their requests carry their `agentId`.
 */
import { addRules } from '../permissions/permission-context.js';
import { formatPermissionRule, tryParsePermissionRule } from '../permissions/permission-rule.js';
import { narrowestRules } from '../permissions/grant-rules.js';
import type { PermissionDecision, PermissionRule } from '../tool/permission-types.js';
import type { AppState, PermissionPromptHandler, PermissionRequest } from '../tool/tool-use-context.js';
import { USER_INTERRUPT } from '../execution/abort-reasons.js';
import type { PermissionAnswer, PersistRulesRequest, RuntimePermissionRequest, ToolRuntimeOptions } from './types.js';

export interface PermissionBridge {
  /** Reads and writes the session's app state (the root runtime's: a sub-agent's session answer is the session's). */
  readonly getAppState: () => AppState;
  readonly setAppState: (update: (prev: AppState) => AppState) => void;
  /** The run a tool_use id belongs to, so `interrupt: true` can stop it. */
  readonly runOf: (toolUseID: string) => AbortController | undefined;
  readonly cwd: string;
}

export function createPermissionHandler(
  onPermissionRequest: NonNullable<ToolRuntimeOptions['onPermissionRequest']>,
  persistRules: ToolRuntimeOptions['persistRules'],
  bridge: PermissionBridge,
  agentId?: string,
): PermissionPromptHandler {
  return async (request: PermissionRequest): Promise<PermissionDecision> => {
    const suggestedRules = suggestionsFor(request, bridge);
    const runtimeRequest: RuntimePermissionRequest = { ...request, suggestedRules, ...(agentId !== undefined ? { agentId } : {}) };
    const answer = await onPermissionRequest(runtimeRequest);
    return decide(answer, runtimeRequest, persistRules, bridge);
  };
}

/**
 * The narrowest rules that cover the call (one exact rule per Bash subcommand that asked, the exact file, the host):
 * what a session or rule answer without its own rules grants. Never a prefix or a whole-tool rule for a shell; empty
 * when no rule can cover the call (then the answer allows this call only).
 */
function suggestionsFor(request: PermissionRequest, bridge: PermissionBridge): string[] {
  try {
    return narrowestRules(request.tool, request.input, bridge.getAppState().toolPermissionContext).map(formatPermissionRule);
  } catch {
    return [];
  }
}

async function decide(
  answer: PermissionAnswer | undefined,
  request: RuntimePermissionRequest,
  persistRules: ToolRuntimeOptions['persistRules'],
  bridge: PermissionBridge,
): Promise<PermissionDecision> {
  const reason = request.ask.decisionReason;
  if (answer === undefined || answer === null || typeof answer !== 'object') {
    return deny('the permission handler gave no answer');
  }
  if (answer.behavior === 'deny') {
    if (answer.interrupt === true) bridge.runOf(request.toolUseID)?.abort(USER_INTERRUPT);
    return {
      behavior: 'deny',
      message: answer.message ?? `Permission to use ${request.tool.name} was refused.`,
      decisionReason: { ...(reason ?? {}), layer: 'prompt', reason: `refused at the prompt${reason ? ` (${reason.reason})` : ''}`, answer: answer.interrupt === true ? 'abort' : 'reject' },
    };
  }
  if (answer.behavior !== 'allow') return deny(`the permission handler answered ${JSON.stringify((answer as { behavior?: unknown }).behavior)}`);
  const scope = answer.scope ?? 'once';
  if (scope === 'once') {
    const updated = 'updatedInput' in answer ? answer.updatedInput : undefined;
    return { behavior: 'allow', ...(updated !== undefined ? { updatedInput: updated, userModified: !('userModified' in answer && answer.userModified === false) } : {}), decisionReason: { ...(reason ?? {}), layer: 'prompt', reason: 'allowed at the prompt for this call', answer: 'once' } };
  }
  const texts = ('rules' in answer ? answer.rules : undefined) ?? request.suggestedRules;
  const rules: PermissionRule[] = [];
  for (const text of texts) {
    const parsed = tryParsePermissionRule(text);
    // Fail closed: a rule we cannot read is not silently widened or dropped.
    if (!parsed.ok) return deny(`the answer's rule ${JSON.stringify(text)} is not a valid permission rule (${parsed.error.problem})`);
    rules.push({
      source: 'session',
      ruleBehavior: 'allow',
      ruleValue: parsed.value,
      sourceFile: 'session',
      root: bridge.cwd,
      // A rule answer's expiry holds in this session too, not only in the file.
      ...(answer.scope === 'rule' && answer.expiresAt !== undefined ? { expiresAt: answer.expiresAt } : {}),
    });
  }
  if (scope === 'rule' && answer.scope === 'rule' && answer.destination !== 'session') {
    if (persistRules === undefined) {
      return deny(`saving rules to ${answer.destination} is not available in this runtime (no persistRules); answer with scope "session" instead`);
    }
    const persist: PersistRulesRequest = {
      rules: rules.map((r) => formatPermissionRule(r.ruleValue)),
      destination: answer.destination,
      ...(answer.expiresAt !== undefined ? { expiresAt: answer.expiresAt } : {}),
      cwd: bridge.cwd,
    };
    try {
      await persistRules(persist);
    } catch (error) {
      return deny(`the rule(s) could not be saved to ${answer.destination}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (rules.length > 0) {
    bridge.setAppState((prev) => ({ ...prev, toolPermissionContext: addRules(prev.toolPermissionContext, rules) }));
  }
  const permanent = answer.scope === 'rule' && answer.destination !== 'session';
  return {
    behavior: 'allow',
    decisionReason: { ...(reason ?? {}), layer: 'prompt', reason: permanent ? `allowed at the prompt, rule saved to ${answer.destination}` : 'allowed at the prompt for the session', answer: permanent ? 'permanent' : 'session' },
  };
}

function deny(why: string): PermissionDecision {
  return { behavior: 'deny', message: `Permission denied: ${why}.`, decisionReason: { layer: 'prompt', reason: why, answer: 'abort' } };
}
