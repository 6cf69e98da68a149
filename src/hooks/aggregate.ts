/**
 * Combines the verdicts of every hook that ran for one event into the outcome the executor acts on. Verdicts arrive
 * in hook order (settings order, then callbacks), whatever order the hooks finished in, so the result is stable.
 */
import type { HookVerdict } from './hook-output.js';
import type {
  PermissionDeniedOutcome,
  PermissionRequestOutcome,
  PostToolUseOutcome,
  PreToolUseBehavior,
  PreToolUseOutcome,
} from './types.js';

/** Shortens a string that would go to the model or the user (persisting the full text); see persist-output.ts. */
export type Capper = (text: string) => Promise<string>;

const RANK: Record<PreToolUseBehavior, number> = { deny: 4, defer: 3, ask: 2, allow: 1 };

interface Common {
  additionalContext: string[];
  systemMessages: string[];
  preventContinuation?: { stopReason?: string };
  nonBlockingErrors: string[];
}

async function collectCommon(verdicts: readonly HookVerdict[], cap: Capper): Promise<Common> {
  const c: Common = { additionalContext: [], systemMessages: [], nonBlockingErrors: [] };
  for (const v of verdicts) {
    for (const e of v.errors) c.nonBlockingErrors.push(await cap(e));
    const j = v.json;
    if (!j) continue;
    if (j.additionalContext) c.additionalContext.push(await cap(j.additionalContext));
    if (j.systemMessage) c.systemMessages.push(await cap(j.systemMessage));
    if (j.continue === false) {
      c.preventContinuation ??= {};
      if (c.preventContinuation.stopReason === undefined && j.stopReason) c.preventContinuation.stopReason = await cap(j.stopReason);
    }
  }
  return c;
}

export async function aggregatePreToolUse(verdicts: readonly HookVerdict[], cap: Capper): Promise<PreToolUseOutcome> {
  const outcome: PreToolUseOutcome = await collectCommon(verdicts, cap);
  const candidates: { behavior: PreToolUseBehavior; reason?: string; source: string }[] = [];
  let updatedInput: Record<string, unknown> | undefined;
  for (const v of verdicts) {
    if (v.blocking !== undefined) candidates.push({ behavior: 'deny', reason: v.blocking, source: v.label });
    else if (v.failClosed !== undefined) candidates.push({ behavior: 'deny', reason: v.failClosed, source: v.label });
    const j = v.json;
    if (!j) continue;
    const legacy = j.decision === 'approve' ? 'allow' : j.decision === 'block' ? 'deny' : undefined;
    const behavior = j.permissionDecision ?? legacy;
    if (behavior && v.blocking === undefined && v.failClosed === undefined) {
      candidates.push({ behavior, reason: j.permissionDecisionReason ?? (legacy ? j.reason : undefined), source: v.label });
    }
    // Each updatedInput replaces the whole input in Claude Code; with several, later hooks win key by key.
    if (j.updatedInput) updatedInput = { ...updatedInput, ...j.updatedInput };
  }
  if (updatedInput) outcome.updatedInput = updatedInput;
  const best = candidates.reduce<number>((m, c) => Math.max(m, RANK[c.behavior]), 0);
  const winners = candidates.filter((c) => RANK[c.behavior] === best);
  const first = winners[0];
  if (first) {
    const reasons = [...new Set(winners.map((w) => w.reason).filter((r): r is string => !!r))];
    outcome.decision = { behavior: first.behavior, source: first.source };
    if (reasons.length > 0) outcome.decision.reason = await cap(reasons.join('\n'));
  }
  return outcome;
}

export async function aggregatePostToolUse(verdicts: readonly HookVerdict[], cap: Capper): Promise<PostToolUseOutcome> {
  const outcome: PostToolUseOutcome = await collectCommon(verdicts, cap);
  const reasons: string[] = [];
  for (const v of verdicts) {
    if (v.blocking !== undefined) reasons.push(v.blocking);
    else if (v.failClosed !== undefined) reasons.push(v.failClosed);
    const j = v.json;
    if (!j) continue;
    if (j.decision === 'block' && v.blocking === undefined) reasons.push(j.reason || `Blocked by hook ${v.label}`);
    // Last hook (in hook order) that rewrites the output wins.
    if (j.hasUpdatedToolOutput) outcome.updatedToolOutput = j.updatedToolOutput;
  }
  if (reasons.length > 0) outcome.block = { reason: await cap([...new Set(reasons)].join('\n')) };
  return outcome;
}

export async function aggregatePermissionRequest(verdicts: readonly HookVerdict[], cap: Capper): Promise<PermissionRequestOutcome> {
  const outcome: PermissionRequestOutcome = { nonBlockingErrors: [] };
  let deny: PermissionRequestOutcome['decision'];
  let allow: PermissionRequestOutcome['decision'];
  let updatedPermissions: unknown[] | undefined;
  for (const v of verdicts) {
    for (const e of v.errors) outcome.nonBlockingErrors.push(await cap(e));
    if (v.failClosed !== undefined) {
      deny ??= { behavior: 'deny', message: await cap(v.failClosed) };
      continue;
    }
    const d = v.json?.requestDecision;
    if (!d) continue;
    if (d.behavior === 'deny') {
      // The first deny (hook order) speaks; a later interrupt still stops the agent.
      if (!deny) deny = { behavior: 'deny', ...(d.message ? { message: await cap(d.message) } : {}) };
      if (d.interrupt) deny.interrupt = true;
    } else {
      allow = { behavior: 'allow', ...(d.updatedInput || allow?.updatedInput ? { updatedInput: { ...allow?.updatedInput, ...d.updatedInput } } : {}) };
      if (d.updatedPermissions) updatedPermissions = [...(updatedPermissions ?? []), ...d.updatedPermissions];
    }
  }
  if (deny) outcome.decision = deny;
  else if (allow) {
    outcome.decision = allow;
    if (updatedPermissions) outcome.updatedPermissions = updatedPermissions;
  }
  return outcome;
}

export async function aggregatePermissionDenied(verdicts: readonly HookVerdict[], cap: Capper): Promise<PermissionDeniedOutcome> {
  const common = await collectCommon(verdicts, cap);
  const outcome: PermissionDeniedOutcome = { additionalContext: common.additionalContext, nonBlockingErrors: common.nonBlockingErrors };
  if (verdicts.some((v) => v.json?.retry === true)) outcome.retry = true;
  return outcome;
}
