/**
 * The resolution chain (DESIGN.md): PreToolUse hook decision → deny rules → ask rules → the tool's own
 * `checkPermissions` and the engine's content checks (paths, Bash, domains) → mode → allow rules and read-only →
 * otherwise ask. A pure function of (tool, input, permission context, filesystem facts): nothing runs, nothing is
 * prompted here — `createCanUseTool` turns a final `ask` into an answer.
 *
 * Precedence, in words: a deny anywhere wins; then an ask (hook ask, ask rule); a hook's allow only stands in for the
 * user's answer at the end, so deny and ask rules, plan mode and adversarial-looking safety checks still apply to it.
 * bypassPermissions allows everything except deny and ask rules and the safety checks no automatic approval may pass
 * (classifierApprovable: false). dontAsk turns whatever would prompt into a deny.
 * Last, an agent's allow ceilings (an active skill's allowed-tools, allow-ceiling.ts) turn an allow they do not cover
 * into an ask.
 */
import type {
  DecisionTrace,
  PermissionAskDecision,
  PermissionDecision,
  PermissionDenyDecision,
  PermissionResult,
  PermissionRule,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { applyAllowCeilings, ceilingsFor } from './allow-ceiling.js';
import { checkToolContent, isNetworkTool, isShellTool, safeIsReadOnly } from './content-check.js';
import { formatPermissionRule } from './permission-rule.js';
import { analysisReady } from './analysis-ready.js';
import { liveContext, withExpiredRules } from './rule-expiry.js';
import { statIfExists } from './observed-fs.js';
import { suggestRules } from './suggest.js';
import { findToolLevelRule, isFrozenRule, toolRuleKey } from './tool-rule-match.js';

function isDirectory(dir: string): boolean {
  try {
    return statIfExists(dir)?.isDirectory() === true;
  } catch {
    return false;
  }
}

export function hasPermissionsToUseTool(
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  hookDecision?: PermissionDecision,
): Promise<PermissionDecision> {
  // Not itself async, and no per-call closure for the tool check: every tool call comes through here, and each extra
  // async layer costs microtask turns. A failure still arrives as a rejection, as from an async function.
  try {
    const state = context.getAppState();
    let ctx = state.toolPermissionContext;
    // A shell command starts where the session's shell is (a `cd` carries over): its paths are judged from there —
    // or from the project when that directory is gone, as the shell then starts there (tools/bash/cwd-tracking.ts).
    if (state.cwd !== ctx.cwd && isShellTool(tool) && isDirectory(state.cwd)) ctx = Object.freeze({ ...ctx, shellCwd: state.cwd });
    const decision = resolveChain(tool, input, ctx, hookDecision, undefined, context);
    // A skill's allowed-tools narrow this agent's automatic allows while it is active (allow-ceiling.ts).
    const ceilings = ceilingsFor(ctx, context.agentId);
    return ceilings.length === 0 ? decision : decision.then((d) => applyDontAsk(applyAllowCeilings(d, ceilings, tool, input, ctx), ctx));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A PreToolUse hook's decision to weigh, and the tool's own `checkPermissions` (e.g. `() => tool.checkPermissions(input, runtime.context)`). */
export interface ResolveOptions {
  readonly hookDecision?: PermissionDecision;
  /** The tool's own check; omitted → no tool-specific objection. */
  readonly runToolCheck?: () => Promise<PermissionResult>;
  /** Whose call this is, for the context's allow ceilings (`undefined`: the main thread). */
  readonly agentId?: string;
}

/** The chain for an explicit permission context (what `toolgate check` and tests call). */
export async function resolvePermission(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
  options: ResolveOptions = {},
): Promise<PermissionDecision> {
  const decision = await resolveChain(tool, input, ctx, options.hookDecision, options.runToolCheck, undefined);
  return applyDontAsk(applyAllowCeilings(decision, ceilingsFor(ctx, options.agentId), tool, input, ctx), ctx);
}

/**
 * The chain against the live rules (expired grants taken out). When a call asks and an expired grant would have
 * allowed it, the trace says so, so a person sees why a grant stopped working.
 */
async function resolveChain(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
  hook: PermissionDecision | undefined,
  runToolCheck: (() => Promise<PermissionResult>) | undefined,
  checkContext: ToolUseContext | undefined,
): Promise<PermissionDecision> {
  // What the judgement needs loaded (analysis-ready.ts); once it is, this is a flag test and no await.
  const ready = analysisReady(tool, input);
  if (ready) await ready;
  const view = liveContext(ctx);
  if (view.expired.length === 0) return resolveLive(tool, input, ctx, hook, runToolCheck, checkContext);
  const decision = await resolveLive(tool, input, view.live, hook, runToolCheck, checkContext);
  if (decision.behavior === 'allow') return decision;
  const withExpired = await resolveLive(tool, input, withExpiredRules(view), hook, runToolCheck, checkContext);
  const rule = withExpired.behavior === 'allow' ? view.expired.find((r) => formatPermissionRule(r.ruleValue) === withExpired.decisionReason?.rule) : undefined;
  if (rule === undefined) return decision;
  const note = `the allow rule ${formatPermissionRule(rule.ruleValue)}${rule.sourceFile ? ` (${rule.sourceFile})` : ''} expired at ${rule.expiresAt} and was ignored`;
  const t = decision.decisionReason;
  return { ...decision, decisionReason: { ...(t ?? { layer: 'prompt' }), reason: t?.reason ? `${t.reason}; ${note}` : note, expiredRule: formatPermissionRule(rule.ruleValue) } };
}

/** The chain itself; the tool's check comes either as a callback or as the context to run `checkPermissions` in. */
async function resolveLive(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
  hook: PermissionDecision | undefined,
  runToolCheck: (() => Promise<PermissionResult>) | undefined,
  checkContext: ToolUseContext | undefined,
): Promise<PermissionDecision> {
  // 1. A hook's deny stands.
  if (hook?.behavior === 'deny') return { ...hook, decisionReason: hookTrace(hook, 'a PreToolUse hook denied this call') };

  // 2. Deny rules: the whole tool, then its content (command, path, domain, parameters).
  const toolLevel = toolLevelRules(ctx, tool);
  const toolDeny = toolLevel.deny;
  if (toolDeny) return deny(ruleTrace('denyRule', toolDeny, `${tool.name} is denied by ${formatPermissionRule(toolDeny.ruleValue)}`));
  const content = checkToolContent(tool, input, ctx, checkContext?.pathChecks);
  const contentLayer = content.decisionReason?.layer;
  if (content.behavior === 'deny' && contentLayer === 'denyRule') return asDeny(content);

  // 3. Ask: a hook's ask, then ask rules.
  if (hook?.behavior === 'ask') return applyDontAsk({ ...hook, decisionReason: hookTrace(hook, 'a PreToolUse hook asked for confirmation') }, ctx);
  const toolAsk = toolLevel.ask;
  if (toolAsk) return applyDontAsk(ask(ruleTrace('askRule', toolAsk, `${tool.name} matches ask rule ${formatPermissionRule(toolAsk.ruleValue)}`)), ctx);
  if (content.behavior === 'ask' && contentLayer === 'askRule') return applyDontAsk(asAsk(content), ctx);

  // 4. The tool's own objections, then the remaining content verdicts (safety checks, mode denials).
  let toolCheck: PermissionResult | undefined;
  if (checkContext || runToolCheck) {
    try {
      toolCheck = checkContext ? await tool.checkPermissions(input, checkContext) : await runToolCheck!();
    } catch (error) {
      // A check that throws decided nothing: ask, never allow.
      const reason = `${tool.name}'s permission check failed: ${error instanceof Error ? error.message : String(error)}`;
      toolCheck = { behavior: 'ask', message: reason, decisionReason: { layer: 'toolCheck', reason, classifierApprovable: false } };
    }
  }
  if (toolCheck?.behavior === 'deny') {
    return asDeny(toolCheck, { layer: 'toolCheck', reason: toolCheck.message || `${tool.name} refused this call` });
  }
  // Asked only when a layer needs it: for Bash it means analysing the command once more.
  let readOnlyMemo: boolean | undefined;
  if (ctx.mode === 'plan' && !(readOnlyMemo ??= safeIsReadOnly(tool, input))) {
    return deny({ layer: 'mode', reason: `plan mode is read-only: ${tool.name} with this input is not a read-only call` });
  }
  if (content.behavior === 'deny') return asDeny(content);

  const pendingAsk = toolCheck?.behavior === 'ask' ? toolCheck : content.behavior === 'ask' ? content : undefined;
  if (pendingAsk) {
    const trace = pendingAsk.decisionReason ?? { layer: 'toolCheck' as const, reason: pendingAsk.message ?? `${tool.name} asks` };
    // A safety check no automatic approval may pass (the seeds' classifierApprovable: false: a critical-path rm, a
    // find whose globs file names turn into actions, a check that could not be made) asks in bypassPermissions too.
    if (ctx.mode === 'bypassPermissions' && !(trace.layer === 'safetyCheck' && trace.classifierApprovable === false)) {
      return { behavior: 'allow', decisionReason: { layer: 'mode', reason: `bypassPermissions mode skips the check: ${trace.reason}`, subcommand: trace.subcommand } };
    }
    if (hook?.behavior === 'allow' && trace.classifierApprovable !== false) {
      return { ...hook, decisionReason: hookTrace(hook, `a PreToolUse hook approved what would have prompted: ${trace.reason}`) };
    }
    return applyDontAsk(withSuggestions(asAsk(pendingAsk, trace), tool, input, ctx), ctx);
  }

  // 5. Mode.
  if (ctx.mode === 'bypassPermissions') {
    return { behavior: 'allow', decisionReason: { layer: 'mode', reason: 'bypassPermissions mode allows everything but deny and ask rules' } };
  }

  // 6. Allow rules and read-only.
  if (content.behavior === 'allow') return { behavior: 'allow', decisionReason: content.decisionReason ?? { layer: 'allowRule', reason: 'allowed' } };
  const toolAllow = toolLevel.allow;
  if (toolAllow) {
    return { behavior: 'allow', decisionReason: ruleTrace('allowRule', toolAllow, `${tool.name} is allowed by ${formatPermissionRule(toolAllow.ruleValue)}`) };
  }
  if (content.behavior === 'passthrough' && content.decisionReason === undefined && !tool.isMcp && !isNetworkTool(tool) && (readOnlyMemo ??= safeIsReadOnly(tool, input))) {
    return { behavior: 'allow', decisionReason: { layer: 'readOnly', reason: `${tool.name} with this input is read-only` } };
  }
  if (hook?.behavior === 'allow') return { ...hook, decisionReason: hookTrace(hook, 'a PreToolUse hook approved this call') };
  // The only objection left is "not provably read-only", and the tool runs the call inside the OS sandbox.
  if (content.behavior === 'passthrough' && toolCheck?.behavior === 'allow' && toolCheck.sandboxAutoAllow === true) {
    const why = content.decisionReason?.reason;
    return { behavior: 'allow', decisionReason: { layer: 'toolCheck', reason: `runs inside the OS sandbox (sandbox.autoAllowBashIfSandboxed)${why ? `; it would have asked: ${why}` : ''}`, subcommand: content.decisionReason?.subcommand } };
  }

  // 7. Nothing allowed it: ask.
  const why = content.decisionReason?.reason ?? content.message ?? `no rule allows ${tool.name}`;
  return applyDontAsk(
    withSuggestions(
      {
        behavior: 'ask',
        message: `${tool.name} needs permission: ${why}`,
        decisionReason: {
          layer: 'prompt',
          reason: why,
          subcommand: content.decisionReason?.subcommand,
          ...(notGrantedOf(content.decisionReason, tool) ?? {}),
        },
        // The content check's own suggestions (one per subcommand of a compound command) beat a generic one.
        ...(content.behavior === 'passthrough' && content.suggestions && content.suggestions.length > 0 ? { suggestions: content.suggestions } : {}),
      },
      tool,
      input,
      ctx,
    ),
    ctx,
  );
}

/** A plain lack of permission: the path check's, or no reason at all for a tool no rule names. */
function notGrantedOf(reason: DecisionTrace | undefined, tool: AnyTool): Pick<DecisionTrace, 'notGranted'> | undefined {
  if (reason?.notGranted) return { notGranted: reason.notGranted };
  return reason === undefined ? { notGranted: { access: 'use', what: tool.name } } : undefined;
}

interface ToolLevelRules {
  readonly deny: PermissionRule | undefined;
  readonly ask: PermissionRule | undefined;
  readonly allow: PermissionRule | undefined;
}

// The three whole-tool lookups of a decision, remembered per frozen context and tool; the last context is kept at
// hand because a session decides many calls against the same one.
const toolLevelMemo = new WeakMap<ToolPermissionContext, Map<string, ToolLevelRules>>();
let lastContext: ToolPermissionContext | undefined;
let lastContextMemo: Map<string, ToolLevelRules> | undefined;
const MAX_REMEMBERED_TOOLS = 4096;

function toolLevelRules(ctx: ToolPermissionContext, tool: AnyTool): ToolLevelRules {
  let memo = ctx === lastContext ? lastContextMemo : toolLevelMemo.get(ctx);
  const key = memo === undefined ? undefined : toolRuleKey(tool);
  if (memo !== undefined && key !== undefined) {
    const known = memo.get(key);
    if (known !== undefined) return known;
  }
  // Pure lookups: doing all three up front decides nothing differently.
  const found: ToolLevelRules = {
    deny: findToolLevelRule(ctx.alwaysDenyRules, tool, true),
    ask: findToolLevelRule(ctx.alwaysAskRules, tool, true),
    allow: findToolLevelRule(ctx.alwaysAllowRules, tool),
  };
  if (memo === undefined) {
    if (!isImmutableContext(ctx)) return found;
    memo = new Map();
    toolLevelMemo.set(ctx, memo);
  }
  lastContext = ctx;
  lastContextMemo = memo;
  if (memo.size < MAX_REMEMBERED_TOOLS) memo.set(key ?? toolRuleKey(tool), found);
  return found;
}

function isImmutableContext(ctx: ToolPermissionContext): boolean {
  if (!Object.isFrozen(ctx)) return false;
  for (const rules of [ctx.alwaysDenyRules, ctx.alwaysAskRules, ctx.alwaysAllowRules]) {
    if (!Object.isFrozen(rules) || !rules.every(isFrozenRule)) return false;
  }
  return true;
}

function applyDontAsk(decision: PermissionDecision, ctx: ToolPermissionContext): PermissionDecision {
  if (decision.behavior !== 'ask' || ctx.mode !== 'dontAsk') return decision;
  const t = decision.decisionReason;
  const reason = `dontAsk mode denies what would prompt (${t?.reason ?? decision.message})`;
  return {
    behavior: 'deny',
    message: headlessDenyMessage(decision, reason),
    decisionReason: { ...(t ?? {}), layer: 'mode', reason },
  };
}

/** The message a headless or dontAsk denial carries: what asked, and which rule would allow it. */
export function headlessDenyMessage(decision: PermissionAskDecision, prefix: string): string {
  const suggestion = decision.suggestions?.[0];
  const t = decision.decisionReason;
  const fixable = t === undefined || !['askRule', 'safetyCheck', 'hook'].includes(t.layer);
  const hint =
    suggestion && fixable
      ? `; to allow it, add ${JSON.stringify(formatPermissionRule(suggestion))} to permissions.allow`
      : t?.layer === 'askRule'
        ? `; the ask rule ${t.rule ?? ''} requires a person to confirm`
        : '';
  return `${prefix}${hint}`;
}

function withSuggestions(d: PermissionAskDecision, tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionAskDecision {
  if (d.suggestions && d.suggestions.length > 0) return d;
  const suggestions = suggestRules(tool, input, ctx, d.decisionReason);
  return suggestions.length > 0 ? { ...d, suggestions } : d;
}

function ruleTrace(layer: DecisionTrace['layer'], rule: PermissionRule, reason: string): DecisionTrace {
  return { layer, reason, rule: formatPermissionRule(rule.ruleValue), source: rule.source, sourceFile: rule.sourceFile };
}

function hookTrace(hook: PermissionDecision, fallback: string): DecisionTrace {
  const t = hook.decisionReason;
  return { ...(t ?? {}), layer: 'hook', reason: t?.reason ?? ('message' in hook && hook.message ? hook.message : fallback) };
}

function deny(trace: DecisionTrace): PermissionDenyDecision {
  return { behavior: 'deny', message: `Permission denied: ${trace.reason}`, decisionReason: trace };
}

function ask(trace: DecisionTrace): PermissionAskDecision {
  return { behavior: 'ask', message: `Permission required: ${trace.reason}`, decisionReason: trace };
}

function asDeny(r: PermissionResult, fallback?: DecisionTrace): PermissionDenyDecision {
  const trace = r.decisionReason ?? fallback ?? { layer: 'toolCheck', reason: ('message' in r && r.message) || 'denied' };
  return { behavior: 'deny', message: ('message' in r && r.message) || `Permission denied: ${trace.reason}`, decisionReason: trace };
}

function asAsk(r: PermissionResult, traceOverride?: DecisionTrace): PermissionAskDecision {
  const trace = traceOverride ?? r.decisionReason ?? { layer: 'toolCheck', reason: ('message' in r && r.message) || 'confirmation needed' };
  const suggestions = 'suggestions' in r ? r.suggestions : undefined;
  return {
    behavior: 'ask',
    message: ('message' in r && r.message) || `Permission required: ${trace.reason}`,
    decisionReason: trace,
    ...(suggestions ? { suggestions } : {}),
  };
}
