/**
 * One `toolgate check` request → one decision, computed by the engine's own functions (nothing runs). Shared by the
 * single-decision form and `--batch` (JSON Lines in, JSON Lines out).
 */
import os from 'node:os';
import path from 'node:path';
import type {
  PermissionAskDecision,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  ToolPermissionContext,
} from '../../tool/permission-types.js';
import { PERMISSION_MODES, PERMISSION_RULE_SOURCES } from '../../tool/permission-types.js';
import type { AnyTool } from '../../tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../../tool/tool-use-context.js';
import { createPermissionContext, updatePermissionContext } from '../../permissions/permission-context.js';
import { tryParsePermissionRule, validatePermissionRule } from '../../permissions/permission-rule.js';
import { resolvePermission } from '../../permissions/resolve.js';
import { classifierEligibility } from '../../permissions/auto-mode.js';
import { permissionTraitsOf } from '../../permissions/tool-traits.js';
import { expandPath } from '../../permissions/paths.js';
import { parsePartialToolInput } from '../../execution/input-validation.js';
import { loadSettings, type LoadSettingsOptions } from '../../settings/load-settings.js';

/** The batch output line, fields in this order. */
export interface CheckOutput {
  behavior: 'allow' | 'ask' | 'deny';
  layer: string;
  rule: string | null;
  source: string | null;
  reason: string;
  /** Auto mode only: `would be consulted`, or `not consulted: <why>` (a person is needed whatever it says). */
  classifier?: string;
}

export class CheckRequestError extends Error {}

/** What the command line sets for every request (a request's own fields win). */
export interface CheckDefaults {
  readonly cwd: string;
  readonly projectDir?: string;
  readonly home?: string;
  readonly mode?: PermissionMode;
  readonly managedSettingsPath?: string;
  readonly flagSettingsFiles?: readonly string[];
  readonly cliRules?: LoadSettingsOptions['cliRules'];
}

export class CheckEngine {
  readonly #toolFor: (name: string) => Promise<AnyTool>;
  readonly #defaults: CheckDefaults;
  readonly #contexts = new Map<string, { ctx: ToolPermissionContext; context: ToolUseContext }>();
  readonly #byRawKey = new Map<string, { ctx: ToolPermissionContext; context: ToolUseContext }>();
  readonly #base: ToolUseContext;

  /** `toolFor`: the tool a request names (see createCheckToolResolver), asked once per request. */
  constructor(toolFor: (name: string) => Promise<AnyTool>, defaults: CheckDefaults) {
    this.#toolFor = toolFor;
    this.#defaults = defaults;
    this.#base = createToolUseContext({ tools: [], permissionContext: createPermissionContext({ cwd: defaults.cwd }), sessionDir: os.tmpdir() });
  }

  /**
   * A request object (already JSON-parsed) → its decision. Throws CheckRequestError for a bad request. `fromJson`:
   * the request is straight from JSON.parse, so its context fields can be keyed by their JSON text.
   */
  async decide(request: unknown, { fromJson = false }: { fromJson?: boolean } = {}): Promise<{ output: CheckOutput; decision: PermissionDecision; warnings: string[] }> {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new CheckRequestError('a request must be a JSON object');
    const r = request as Record<string, unknown>;
    if (typeof r.tool !== 'string' || r.tool.length === 0) throw new CheckRequestError('"tool" must be a non-empty string');
    const input = r.input ?? {};
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new CheckRequestError('"input" must be a JSON object');
    const { ctx, context, warnings } = this.#contextFor(r, fromJson);
    const tool = await this.#toolFor(r.tool);
    // As in the pipeline, permissions see the input after schema parsing (which may coerce fields). A value the schema
    // rejects never reaches a permission check (the call fails validation first): no decision, an input error. Fields
    // left out are not asked for: a policy test gives what its rules look at (Edit's file_path, not its strings).
    const parsed = parsePartialToolInput(tool, input);
    if (!parsed.ok) throw new CheckRequestError(`input error, no permission check would run: ${parsed.message}`);
    // Backfills rewrite top-level fields: copy shallowly.
    const observable = { ...parsed.input };
    // `home` replaces `~` for this request: expand it before a tool's backfill would use the process's home.
    const field = permissionTraitsOf(tool).pathField;
    const raw = field !== undefined ? observable[field] : undefined;
    if (field !== undefined && typeof raw === 'string' && (raw === '~' || raw.startsWith('~/'))) {
      observable[field] = expandPath(raw, ctx.cwd, ctx.homeDir);
    }
    if (tool.backfillObservableInput) {
      try {
        tool.backfillObservableInput(observable, context);
      } catch {
        // A backfill that cannot cope with this input leaves it as given; the engine resolves paths itself.
      }
    }
    const resolved = await resolvePermission(tool, observable, ctx, { runToolCheck: () => tool.checkPermissions(observable, context) });
    const auto = ctx.mode === 'auto' && resolved.behavior === 'ask' ? withoutClassifierModel(resolved, tool, observable) : undefined;
    const decision = auto?.decision ?? resolved;
    const t = decision.decisionReason;
    return {
      output: {
        behavior: decision.behavior,
        layer: t?.layer ?? 'prompt',
        rule: t?.rule ?? null,
        source: t?.source ?? null,
        reason: t?.reason ?? ('message' in decision ? decision.message : ''),
        ...(auto ? { classifier: auto.classifier } : {}),
      },
      decision,
      warnings,
    };
  }

  #contextFor(r: Record<string, unknown>, fromJson: boolean): { ctx: ToolPermissionContext; context: ToolUseContext; warnings: string[] } {
    // A batch repeats a few contexts: key them by the JSON text of the request's context fields (one native
    // stringify) before validating and normalising anything. Only for JSON.parse output: there every value has one
    // JSON text (no undefined, functions or toJSON that stringify would drop or rewrite; an absent field is omitted,
    // a null one kept), so requests with the same text validate alike and describe the same context.
    const rawKey = fromJson
      ? JSON.stringify({ c: r.cwd, p: r.projectDir, h: r.home, m: r.mode, r: r.rules, a: r.additionalDirectories })
      : undefined;
    const fast = rawKey !== undefined ? this.#byRawKey.get(rawKey) : undefined;
    if (fast) return { ...fast, warnings: [] };
    const d = this.#defaults;
    const cwd = absField(r, 'cwd') ?? path.resolve(d.cwd);
    const projectDir = absField(r, 'projectDir') ?? (d.projectDir !== undefined ? path.resolve(d.projectDir) : cwd);
    const home = absField(r, 'home') ?? d.home;
    let mode: PermissionMode | undefined = d.mode;
    if (r.mode !== undefined) {
      if (typeof r.mode !== 'string' || !(PERMISSION_MODES as readonly string[]).includes(r.mode)) {
        throw new CheckRequestError(`"mode" must be one of ${PERMISSION_MODES.join(', ')}`);
      }
      mode = r.mode as PermissionMode;
    }
    const dirs = r.additionalDirectories;
    if (dirs !== undefined && (!Array.isArray(dirs) || !dirs.every((x) => typeof x === 'string'))) {
      throw new CheckRequestError('"additionalDirectories" must be an array of strings');
    }
    const key = contextKey(cwd, projectDir, home, mode, r.rules, dirs);
    const cached = this.#contexts.get(key);
    if (cached) {
      if (rawKey !== undefined) this.#rememberRaw(rawKey, cached);
      return { ...cached, warnings: [] };
    }
    let ctx: ToolPermissionContext;
    const warnings: string[] = [];
    if (r.rules !== undefined) {
      ctx = createPermissionContext({
        cwd,
        projectDir,
        ...(home !== undefined ? { homeDir: home } : {}),
        mode: mode ?? 'default',
        additionalDirectories: (dirs as string[] | undefined) ?? [],
        rules: parseRequestRules(r.rules),
      });
    } else {
      const s = loadSettings({
        cwd,
        projectDir,
        ...(home !== undefined ? { homeDir: home } : {}),
        ...(d.managedSettingsPath !== undefined ? { managedSettingsPath: d.managedSettingsPath } : {}),
        ...(d.flagSettingsFiles ? { flagSettingsFiles: d.flagSettingsFiles } : {}),
        ...(d.cliRules ? { cliRules: d.cliRules } : {}),
        ...(mode !== undefined ? { mode } : {}),
      });
      if (s.errors.length > 0) {
        // Fail closed: a decision under a policy we could not read completely would be a guess.
        throw new CheckRequestError(`settings errors: ${s.errors.map((e) => `${e.file}${e.key ? ` (${e.key})` : ''}: ${e.message}`).join('; ')}`);
      }
      warnings.push(...s.warnings);
      ctx = s.permissionContext;
      if (dirs !== undefined && dirs.length > 0) {
        const merged = new Map(ctx.additionalWorkingDirectories);
        for (const x of dirs as string[]) merged.set(path.resolve(cwd, x), { path: path.resolve(cwd, x), source: 'session' });
        ctx = updatePermissionContext(ctx, { additionalWorkingDirectories: merged });
      }
    }
    const appState = { toolPermissionContext: ctx, cwd: ctx.cwd };
    const context: ToolUseContext = { ...this.#base, getAppState: () => appState };
    if (this.#contexts.size > 1000) this.#contexts.clear();
    this.#contexts.set(key, { ctx, context });
    if (rawKey !== undefined && warnings.length === 0) this.#rememberRaw(rawKey, { ctx, context });
    return { ctx, context, warnings };
  }

  #rememberRaw(rawKey: string, entry: { ctx: ToolPermissionContext; context: ToolUseContext }): void {
    if (this.#byRawKey.size > 1000) this.#byRawKey.clear();
    this.#byRawKey.set(rawKey, entry);
  }
}

/**
 * `check` runs no model. In auto mode, a call the rules leave open either goes to the classifier — then it is decided
 * as a headless run decides without a verdict (denied), and the output says the classifier would be consulted — or it
 * needs a person whatever a classifier would say (an ask rule, a safety check it may not approve): it stays `ask`.
 */
function withoutClassifierModel(ask: PermissionAskDecision, tool: AnyTool, input: Record<string, unknown>): { decision: PermissionDecision; classifier: string } {
  const t = ask.decisionReason ?? { layer: 'prompt' as const, reason: ask.message };
  const eligibility = classifierEligibility(ask, tool, input, { hasClassifier: true });
  if (!eligibility.consult) {
    return { decision: { ...ask, decisionReason: { ...t, classifier: { outcome: 'skipped', reason: eligibility.reason } } }, classifier: `not consulted: ${eligibility.reason}` };
  }
  const reason = `auto mode would consult the classifier here; toolgate check runs no model, so this is decided as a headless run without its verdict (denied): ${t.reason}`;
  return {
    decision: {
      behavior: 'deny',
      message: `Permission denied: ${reason}`,
      decisionReason: { ...t, layer: 'prompt', reason, classifier: { outcome: 'skipped', reason: 'toolgate check runs no model; the classifier would be consulted' } },
    },
    classifier: 'would be consulted',
  };
}

/** A cache key for the context a request describes (cheaper than stringifying the whole request). */
function contextKey(cwd: string, projectDir: string, home: string | undefined, mode: string | undefined, rules: unknown, dirs: unknown): string {
  let key = `${JSON.stringify([cwd, projectDir, home ?? null, mode ?? null])}`;
  if (Array.isArray(rules)) {
    for (const rule of rules) {
      if (rule !== null && typeof rule === 'object') {
        const x = rule as Record<string, unknown>;
        // JSON-quoted parts: no separator can be forged from inside a value.
        key += `${JSON.stringify(x.source)},${JSON.stringify(x.behavior)},${JSON.stringify(x.rule)},${JSON.stringify(x.root)};`;
      } else {
        key += `${JSON.stringify(rule)};`;
      }
    }
  } else {
    key += rules === undefined ? '-' : JSON.stringify(rules);
  }
  return `${key}|${dirs === undefined ? '' : JSON.stringify(dirs)}`;
}

function absField(r: Record<string, unknown>, key: string): string | undefined {
  const v = r[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !path.isAbsolute(v)) throw new CheckRequestError(`"${key}" must be an absolute path`);
  return path.resolve(v);
}

function parseRequestRules(value: unknown): PermissionRule[] {
  if (!Array.isArray(value)) throw new CheckRequestError('"rules" must be an array');
  return value.map((item, i) => {
    const where = `rules[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new CheckRequestError(`${where} must be an object`);
    const { source, behavior, rule, root } = item as Record<string, unknown>;
    if (typeof source !== 'string' || !(PERMISSION_RULE_SOURCES as readonly string[]).includes(source)) {
      throw new CheckRequestError(`${where}.source must be one of ${PERMISSION_RULE_SOURCES.join(', ')}`);
    }
    if (behavior !== 'allow' && behavior !== 'deny' && behavior !== 'ask') throw new CheckRequestError(`${where}.behavior must be allow, deny or ask`);
    if (typeof rule !== 'string') throw new CheckRequestError(`${where}.rule must be a string`);
    const parsed = tryParsePermissionRule(rule);
    if (!parsed.ok) throw new CheckRequestError(`${where}: ${parsed.error.message}`);
    const problems = validatePermissionRule(parsed.value, behavior).errors;
    if (problems.length > 0) throw new CheckRequestError(`${where}: ${problems.join('; ')} in rule ${JSON.stringify(rule)}`);
    if (root !== undefined && (typeof root !== 'string' || !path.isAbsolute(root))) throw new CheckRequestError(`${where}.root must be an absolute path`);
    return {
      source: source as PermissionRule['source'],
      ruleBehavior: behavior,
      ruleValue: parsed.value,
      ...(root !== undefined ? { root: path.resolve(root) } : {}),
    };
  });
}
