/**
 * The engine's own look at what a call does, by tool kind: Bash commands (the bash analyser), file paths (path
 * rules, working directories, protected paths), WebFetch domains, and generic content rules (`Agent(Explore)`,
 * parameter rules `Tool(param:value)` for deny/ask). Returns one PermissionResult whose trace names the layer;
 * `passthrough` means no content rule decided.
 */
import type {
  DecisionTrace,
  PermissionResult,
  PermissionRule,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import type { PathChecks } from '../tool/path-checks.js';
import type { AnyTool } from '../tool/tool.js';
import { checkBashPermission } from './bash/index.js';
import type { BashPermissionDeps } from './bash/types.js';
import { isPathTool, isShellTool, permissionTraitsOf } from './tool-traits.js';
import { domainPatternOf, hostMatchesDomainPattern, hostOfUrl } from './domains.js';
import { parameterRulesFor, PRIMARY_FIELDS } from './parameter-rules.js';
import { formatPermissionRule } from './permission-rule.js';
import { checkPathPermission, expandPath, type PathAccessKind } from './paths.js';

const ALTERNATE_PATH_FIELDS = ['file_path', 'path', 'notebook_path'];

/** Tools whose calls reach the network: never approved only for being read-only. */
export const NETWORK_TOOLS: ReadonlySet<string> = new Set(['WebFetch', 'WebSearch']);

/** A tool whose calls reach the network (declared `fetch`): never approved only for being read-only. */
export function isNetworkTool(tool: AnyTool): boolean {
  return permissionTraitsOf(tool).kind === 'fetch';
}

/** The field generic `Tool(content)` rules are matched against, when the tool has one. */
export function contentFieldOf(tool: AnyTool): string | undefined {
  return permissionTraitsOf(tool).contentField;
}

export function isFileTool(tool: AnyTool): boolean {
  return isPathTool(tool);
}

export { isShellTool };

/** How the Bash checks decide the paths a command writes and reads: the engine's path check. */
export function bashDeps(ctx: ToolPermissionContext, ruleToolName = 'Bash'): BashPermissionDeps {
  const home = ctx.homeDir;
  return {
    checkWritePath: (p) => checkPathPermission(expandPath(p, ctx.cwd, home), 'write', ctx),
    checkReadPath: (p) => checkPathPermission(expandPath(p, ctx.cwd, home), 'read', ctx),
    ...(ruleToolName !== 'Bash' ? { ruleToolName } : {}),
  };
}

function trace(layer: DecisionTrace['layer'], reason: string, rule?: PermissionRule, extra: Partial<DecisionTrace> = {}): DecisionTrace {
  return {
    layer,
    reason,
    ...(rule ? { rule: formatPermissionRule(rule.ruleValue), source: rule.source, sourceFile: rule.sourceFile } : {}),
    ...extra,
  };
}

const PASS: PermissionResult = { behavior: 'passthrough' };

/** `checks`: the call's record of the real paths judged (src/tool/path-checks.ts), when its tool will bind to them. */
export function checkToolContent(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext, checks?: PathChecks): PermissionResult {
  const param = checkParameterRules(tool, input, ctx);
  if (param.behavior === 'deny') return param;
  let result: PermissionResult;
  const traits = permissionTraitsOf(tool);
  if (traits.kind === 'shell') result = checkBash(input[traits.commandField ?? 'command'], ctx, tool.name);
  else if (isPathTool(tool)) result = checkFileTool(tool, input, ctx, checks);
  else if (traits.kind === 'fetch' && traits.urlField !== undefined) result = checkWebFetch(tool.name, input[traits.urlField], ctx);
  else result = checkGenericContent(tool, input, ctx);
  if (result.behavior === 'deny') return result;
  if (param.behavior === 'ask') return param;
  return result;
}

function checkBash(command: unknown, ctx: ToolPermissionContext, toolName: string): PermissionResult {
  if (typeof command !== 'string') {
    const reason = `${toolName} input has no command string`;
    return { behavior: 'ask', message: reason, decisionReason: trace('safetyCheck', reason, undefined, { classifierApprovable: false }) };
  }
  try {
    return checkBashPermission(command, ctx, bashDeps(ctx, toolName));
  } catch (error) {
    // The analyser failing is something we cannot reason about: ask, never allow.
    const reason = `the command could not be analysed (${error instanceof Error ? error.message : String(error)})`;
    return { behavior: 'ask', message: reason, decisionReason: trace('safetyCheck', reason, undefined, { classifierApprovable: false }) };
  }
}

/** The path a file tool touches, absolute; undefined when the input names none. */
export function toolPath(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): string | undefined {
  return toolPaths(tool, input, ctx)[0];
}

/**
 * Every reading of the path a call touches: the tool's own `getPath` and the raw input field expanded by the engine
 * (`~` with the context's home). They normally agree; when they do not, each must pass.
 */
function toolPaths(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): string[] {
  const out: string[] = [];
  const seen: string[] = [];
  const add = (raw: unknown) => {
    // The same spelling expands the same way: the field is usually read three times (getPath, its own, the alternates).
    if (typeof raw !== 'string' || raw.length === 0 || seen.includes(raw)) return;
    seen.push(raw);
    const abs = expandPath(raw, ctx.cwd, ctx.homeDir);
    if (!out.includes(abs)) out.push(abs);
  };
  if (typeof tool.getPath === 'function') {
    try {
      add(tool.getPath(input));
    } catch {
      // a getPath that cannot cope with this input: the raw field below still counts
    }
  }
  // The tool's own field, and the other path spellings tools coerce (`path` → `file_path`): each must pass.
  for (const field of [permissionTraitsOf(tool).pathField, ...ALTERNATE_PATH_FIELDS]) if (field !== undefined) add(input[field]);
  return out;
}

const SEVERITY: Readonly<Record<PermissionResult['behavior'], number>> = { deny: 3, ask: 2, passthrough: 1, allow: 0 };

function checkFileTool(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext, judged: PathChecks | undefined): PermissionResult {
  const readOnly = safeIsReadOnly(tool, input);
  const kind = readOnly ? 'read' : 'write';
  let paths = toolPaths(tool, input, ctx);
  if (paths.length === 0) {
    if (!readOnly) return PASS; // the tool's own validation rejects a write without a path
    paths = [ctx.cwd]; // search tools default to the working directory
  }
  // A Glob pattern can reach beyond its `path` (`/etc/*`, `../../**`): judge the pattern's fixed base as well.
  const checks: [string, PathAccessKind][] = paths.map((p) => [p, kind]);
  const patternField = permissionTraitsOf(tool).patternField;
  const pattern = patternField === undefined ? undefined : input[patternField];
  if (typeof pattern === 'string') {
    const base = globBase(pattern);
    if (base !== undefined) for (const p of paths) checks.push([expandPath(base, p, ctx.homeDir), 'read']);
  }
  let worst: PermissionResult | undefined;
  for (const [p, k] of checks) {
    const r = checkPathPermission(p, k, ctx, judged);
    if (worst === undefined || SEVERITY[r.behavior] > SEVERITY[worst.behavior]) worst = r;
    if (r.behavior === 'deny') break;
  }
  return worst ?? PASS;
}

/** The literal leading directories of a glob when they could leave the search root (absolute, `~`, `..`). */
function globBase(pattern: string): string | undefined {
  if (!(pattern.startsWith('/') || pattern.startsWith('~') || pattern.split('/').includes('..'))) return undefined;
  const segs = pattern.split('/');
  const fixed: string[] = [];
  for (const s of segs.slice(0, -1)) {
    if (/[*?[\]{}\\]/.test(s)) break;
    fixed.push(s);
  }
  const base = fixed.join('/');
  return base === '' ? (pattern.startsWith('/') ? '/' : '.') : base;
}

function checkWebFetch(toolName: string, url: unknown, ctx: ToolPermissionContext): PermissionResult {
  const host = hostOfUrl(url);
  const rulesOf = (rules: readonly PermissionRule[]) =>
    rules.filter((r) => r.ruleValue.toolName === toolName && r.ruleValue.ruleContent !== undefined);
  const deny = rulesOf(ctx.alwaysDenyRules);
  const ask = rulesOf(ctx.alwaysAskRules);
  if (!host.ok) {
    if (deny.length > 0 || ask.length > 0) {
      // Named in the trace: it is this rule that cannot be ruled out (a hook's `if` runs on it; see permission-matcher).
      const reason = `${host.reason}: domain rules cannot be checked`;
      return { behavior: 'ask', message: reason, decisionReason: trace('safetyCheck', reason, deny[0] ?? ask[0], { classifierApprovable: false }) };
    }
    return PASS;
  }
  const match = (r: PermissionRule) => {
    const pattern = domainPatternOf(r.ruleValue.ruleContent!);
    return pattern !== undefined && hostMatchesDomainPattern(host.host, pattern);
  };
  const d = deny.find(match);
  if (d) {
    const reason = `fetching from ${host.host} is denied by ${formatPermissionRule(d.ruleValue)}`;
    return { behavior: 'deny', message: `Permission to use ${toolName}: ${reason}`, decisionReason: trace('denyRule', reason, d) };
  }
  const a = ask.find(match);
  if (a) {
    const reason = `fetching from ${host.host} matches ask rule ${formatPermissionRule(a.ruleValue)}`;
    return { behavior: 'ask', message: reason, decisionReason: trace('askRule', reason, a) };
  }
  const allow = rulesOf(ctx.alwaysAllowRules).find(match);
  if (allow) {
    const reason = `fetching from ${host.host} is allowed by ${formatPermissionRule(allow.ruleValue)}`;
    return { behavior: 'allow', decisionReason: trace('allowRule', reason, allow) };
  }
  return { behavior: 'passthrough', message: `no rule allows fetching from ${host.host}`, decisionReason: trace('toolCheck', `no rule allows fetching from ${host.host}`) };
}

/** `Agent(Explore)`, `Skill(commit *)`: the rule content against the tool's content field, `*` as a wildcard. */
function checkGenericContent(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionResult {
  const field = contentFieldOf(tool);
  if (field === undefined) return PASS;
  const value = input[field];
  if (typeof value !== 'string') return PASS;
  // `Skill(commit *)`: a content value with arguments is matched with them too.
  const subject = typeof input.args === 'string' ? `${value} ${input.args}`.trim() : value;
  const matches = (r: PermissionRule) =>
    r.ruleValue.toolName === tool.name &&
    r.ruleValue.ruleContent !== undefined &&
    !isParameterRule(r.ruleValue.ruleContent, input) &&
    (wildcardMatch(r.ruleValue.ruleContent, subject) || wildcardMatch(r.ruleValue.ruleContent, value));
  for (const [behavior, rules] of [['deny', ctx.alwaysDenyRules], ['ask', ctx.alwaysAskRules], ['allow', ctx.alwaysAllowRules]] as const) {
    const r = rules.find(matches);
    if (!r) continue;
    const reason = `${tool.name} ${field} "${value}" matches ${behavior} rule ${formatPermissionRule(r.ruleValue)}`;
    const layer = behavior === 'deny' ? 'denyRule' : behavior === 'ask' ? 'askRule' : 'allowRule';
    if (behavior === 'allow') return { behavior, decisionReason: trace(layer, reason, r) };
    return { behavior, message: reason, decisionReason: trace(layer, reason, r) };
  }
  return PASS;
}

function isParameterRule(content: string, input: Record<string, unknown>): boolean {
  const m = /^([A-Za-z_][A-Za-z0-9_]*):(.*)$/s.exec(content);
  return m !== null && !PRIMARY_FIELDS.has(m[1]!) && Object.prototype.hasOwnProperty.call(input, m[1]!);
}

/** Deny/ask parameter rules: `Agent(model:opus)`, `Bash(run_in_background:true)` on a top-level scalar field. */
function checkParameterRules(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionResult {
  return matchParameterRules(tool, input, 'deny', ctx.alwaysDenyRules) ?? matchParameterRules(tool, input, 'ask', ctx.alwaysAskRules) ?? PASS;
}

function matchParameterRules(
  tool: AnyTool,
  input: Record<string, unknown>,
  behavior: 'deny' | 'ask',
  rules: readonly PermissionRule[],
): PermissionResult | undefined {
  for (const p of parameterRulesFor(rules, tool.name)) {
    if (!Object.prototype.hasOwnProperty.call(input, p.field)) continue;
    const v = input[p.field];
    if (v === null || typeof v === 'object' || typeof v === 'function') continue;
    if (!p.matches(String(v))) continue;
    const reason = `${tool.name} ${p.field}=${JSON.stringify(v)} matches ${behavior} rule ${formatPermissionRule(p.rule.ruleValue)}`;
    return { behavior, message: reason, decisionReason: trace(behavior === 'deny' ? 'denyRule' : 'askRule', reason, p.rule) };
  }
  return undefined;
}

export function wildcardMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return re.test(value);
}

export function safeIsReadOnly(tool: AnyTool, input: Record<string, unknown>): boolean {
  try {
    return tool.isReadOnly(input) === true;
  } catch {
    return false;
  }
}
