/**
 * One `toolgate check` request → one decision, computed by the engine's own functions (nothing runs). Shared by the
 * single-decision form and `--batch` (JSON Lines in, JSON Lines out).
 */
import os from 'node:os';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type {
  PermissionAskDecision,
  PermissionDecision,
  PermissionMode,
  ToolPermissionContext,
} from '../../tool/permission-types.js';
import { PERMISSION_MODES } from '../../tool/permission-types.js';
import type { AnyTool } from '../../tool/tool.js';
import { createToolUseContext, type ToolUseContext } from '../../tool/tool-use-context.js';
import { createPermissionContext, updatePermissionContext } from '../../permissions/permission-context.js';
import { resolvePermission } from '../../permissions/resolve.js';
import { classifierEligibility } from '../../permissions/auto-mode.js';
import { isShellTool, permissionTraitsOf } from '../../permissions/tool-traits.js';
import { expandPath } from '../../permissions/paths.js';
import { parsePartialToolInput } from '../../execution/input-validation.js';
import { loadSettings, type LoadedSettings, type LoadSettingsOptions } from '../../settings/load-settings.js';
import { CheckRequestError, RequestRules } from './check-request-rules.js';

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

export { CheckRequestError };

/** A decision, and what it was made for: the tool and the permission context (for callers that reuse decisions). */
export interface CheckResult {
  readonly output: CheckOutput;
  readonly decision: PermissionDecision;
  readonly warnings: string[];
  readonly tool: AnyTool;
  readonly ctx: ToolPermissionContext;
  /** The settings the context was loaded from (absent for a request that gave its own rules). */
  readonly settings?: LoadedSettings;
}

/** What the command line sets for every request (a request's own fields win). */
export interface CheckDefaults {
  readonly cwd: string;
  readonly projectDir?: string;
  readonly home?: string;
  readonly mode?: PermissionMode;
  readonly managedSettingsPath?: string;
  readonly flagSettingsFiles?: readonly string[];
  readonly cliRules?: LoadSettingsOptions['cliRules'];
  /** Told of every settings load a new context makes (`toolgate hook` reads the redaction keys and watches the files). */
  readonly onSettingsLoaded?: (loaded: LoadedSettings) => void;
}

interface ContextEntry {
  readonly ctx: ToolPermissionContext;
  readonly context: ToolUseContext;
  readonly settings?: LoadedSettings;
}

export class CheckEngine {
  readonly #toolFor: (name: string) => Promise<AnyTool>;
  readonly #defaults: CheckDefaults;
  /**
   * Contexts by what describes them, the least recently used forgotten first. Forgetting one loaded from settings
   * files counts as forgetting (contextEpoch): built again, it reads them again. One a request gave its rules for is
   * built again the same, so a batch whose lines each bring their own rules keeps its remembered answers.
   */
  readonly #contexts = new LRUCache<string, ContextEntry>({
    max: 1000,
    dispose: (entry, _key, reason) => {
      if (reason === 'evict' && entry.settings !== undefined) this.#epoch++;
    },
  });
  readonly #shapes = new ContextShapes<ContextEntry>();
  /** The rules requests gave, each read once per content (check-request-rules.ts). */
  readonly #rules = new RequestRules();
  readonly #base: ToolUseContext;
  #epoch = 0;

  /** `toolFor`: the tool a request names (see createCheckToolResolver), asked once per request. */
  constructor(toolFor: (name: string) => Promise<AnyTool>, defaults: CheckDefaults) {
    this.#toolFor = toolFor;
    this.#defaults = defaults;
    this.#base = createToolUseContext({ tools: [], permissionContext: createPermissionContext({ cwd: defaults.cwd }), sessionDir: os.tmpdir() });
  }

  /**
   * Changes when contexts built so far are forgotten: a context built again reads its settings files again, so a
   * decision remembered under the old one may no longer be what deciding now would give.
   */
  get contextEpoch(): number {
    return this.#epoch;
  }

  /** Forgets every context built so far: the next request reads its settings files again (a long-lived server's reload). */
  forget(): void {
    this.#contexts.clear();
    this.#shapes.clear();
    this.#epoch++;
  }

  /**
   * A request object (already JSON-parsed) → its decision. Throws CheckRequestError for a bad request. `fromJson`:
   * the request is straight from JSON.parse, so its context fields can be keyed by their JSON text.
   */
  async decide(request: unknown, { fromJson = false }: { fromJson?: boolean } = {}): Promise<CheckResult> {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new CheckRequestError('a request must be a JSON object');
    const r = request as Record<string, unknown>;
    if (typeof r.tool !== 'string' || r.tool.length === 0) throw new CheckRequestError('"tool" must be a non-empty string');
    const input = r.input ?? {};
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new CheckRequestError('"input" must be a JSON object');
    const entry = this.#contextFor(r, fromJson);
    const { warnings, settings } = entry;
    let { ctx, context } = entry;
    const tool = await this.#toolFor(r.tool);
    // `shellCwd`: where the session's shell is now (a `cd` carried over), as the pipeline sets it per decision
    // (permissions/resolve.ts): a shell command's paths are judged from there, rules stay anchored at the session's cwd.
    const shellCwd = absField(r, 'shellCwd');
    if (shellCwd !== undefined && shellCwd !== ctx.cwd) {
      if (isShellTool(tool)) ctx = Object.freeze({ ...ctx, shellCwd });
      const appState = { toolPermissionContext: ctx, cwd: shellCwd };
      context = { ...context, getAppState: () => appState };
    }
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
      tool,
      ctx,
      ...(settings !== undefined ? { settings } : {}),
    };
  }

  /** The settings a request's context is loaded from (cwd, projectDir, home, mode as in `decide`), without deciding. */
  settingsFor(request: Record<string, unknown>): LoadedSettings | undefined {
    return this.#contextFor(request, false).settings;
  }

  #contextFor(r: Record<string, unknown>, fromJson: boolean): ContextEntry & { warnings: string[] } {
    // A batch repeats a few contexts: find the request's among those already built by comparing its context fields
    // as they came from JSON.parse, before validating and normalising anything (see ContextShapes).
    const fast = fromJson ? this.#shapes.find(r) : undefined;
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
      if (fromJson) this.#shapes.remember(r, cached);
      return { ...cached, warnings: [] };
    }
    let ctx: ToolPermissionContext;
    let settings: LoadedSettings | undefined;
    const warnings: string[] = [];
    if (r.rules !== undefined) {
      ctx = createPermissionContext({
        cwd,
        projectDir,
        ...(home !== undefined ? { homeDir: home } : {}),
        mode: mode ?? 'default',
        additionalDirectories: (dirs as string[] | undefined) ?? [],
        rules: this.#rules.parse(r.rules),
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
      d.onSettingsLoaded?.(s);
      settings = s;
      ctx = s.permissionContext;
      if (dirs !== undefined && dirs.length > 0) {
        const merged = new Map(ctx.additionalWorkingDirectories);
        for (const x of dirs as string[]) merged.set(path.resolve(cwd, x), { path: path.resolve(cwd, x), source: 'session' });
        ctx = updatePermissionContext(ctx, { additionalWorkingDirectories: merged });
      }
    }
    const appState = { toolPermissionContext: ctx, cwd: ctx.cwd };
    const context: ToolUseContext = { ...this.#base, getAppState: () => appState };
    const entry: ContextEntry = { ctx, context, ...(settings !== undefined ? { settings } : {}) };
    this.#contexts.set(key, entry);
    if (fromJson && warnings.length === 0) this.#shapes.remember(r, entry);
    return { ...entry, warnings };
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

/**
 * The contexts already built, found again by the request fields that describe them (cwd, projectDir, home, mode,
 * rules, additionalDirectories) as JSON.parse made them: the four scalars as a short key, then the rules and
 * directories compared field by field (every value a string, number, boolean or null, so `===` is equality) with
 * those of requests that built a context. Equal fields validate alike and describe the same context, so nothing is
 * validated or normalised again; a field that is anything else (an object where a string belongs) is never
 * remembered, and such a request takes the full path. Cheaper than stringifying the rules per request — the rule
 * set is most of a request line. Only what a rule's parsing reads is compared (source, behavior, rule, root), as in
 * contextKey. It holds nothing the contexts map does not: a lookup that skips work, never a fact about the
 * filesystem (real paths are resolved again by every decision).
 */
class ContextShapes<T> {
  readonly #byScalars = new Map<string, { rules: unknown; dirs: unknown; entry: T }[]>();

  find(r: Record<string, unknown>): T | undefined {
    const key = scalarKey(r);
    if (key === undefined) return undefined;
    const seen = this.#byScalars.get(key);
    if (seen === undefined) return undefined;
    for (const s of seen) if (sameRules(s.rules, r.rules) && sameStrings(s.dirs, r.additionalDirectories)) return s.entry;
    return undefined;
  }

  clear(): void {
    this.#byScalars.clear();
  }

  remember(r: Record<string, unknown>, entry: T): void {
    const key = scalarKey(r);
    if (key === undefined || !isPlainRules(r.rules) || !isStrings(r.additionalDirectories)) return;
    if (this.#byScalars.size > 1000) this.#byScalars.clear();
    let seen = this.#byScalars.get(key);
    if (seen === undefined) this.#byScalars.set(key, (seen = []));
    if (seen.length >= 16) seen.shift();
    seen.push({ rules: r.rules, dirs: r.additionalDirectories, entry });
  }
}

const RULE_FIELDS = ['source', 'behavior', 'rule', 'root'] as const;

const isScalar = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * cwd, projectDir, home and mode as one key; undefined unless each is a string or absent (anything else is an error
 * the full path reports). Each part is length-prefixed, so no value can forge another's key.
 */
function scalarKey(r: Record<string, unknown>): string | undefined {
  let key = '';
  for (const v of [r.cwd, r.projectDir, r.home, r.mode]) {
    if (v === undefined) key += '-|';
    else if (typeof v === 'string') key += `${v.length}:${v}|`;
    else return undefined;
  }
  return key;
}

function isPlainRules(rules: unknown): boolean {
  if (rules === undefined) return true;
  if (!Array.isArray(rules)) return false;
  return rules.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && RULE_FIELDS.every((f) => isScalar((x as Record<string, unknown>)[f])));
}

const isStrings = (dirs: unknown): boolean => dirs === undefined || (Array.isArray(dirs) && dirs.every((x) => typeof x === 'string'));

/** `known` passed isPlainRules when remembered. */
function sameRules(known: unknown, rules: unknown): boolean {
  if (known === undefined || rules === undefined) return known === rules;
  if (!Array.isArray(rules)) return false;
  const k = known as readonly Record<string, unknown>[];
  if (k.length !== rules.length) return false;
  for (let i = 0; i < k.length; i++) {
    const x: unknown = rules[i];
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
    const a = k[i]!;
    const b = x as Record<string, unknown>;
    if (a.rule !== b.rule || a.source !== b.source || a.behavior !== b.behavior || a.root !== b.root) return false;
  }
  return true;
}

/** `known` passed isStrings when remembered. */
function sameStrings(known: unknown, dirs: unknown): boolean {
  if (known === undefined || dirs === undefined) return known === dirs;
  if (!Array.isArray(dirs)) return false;
  const k = known as readonly string[];
  return k.length === dirs.length && k.every((d, i) => d === dirs[i]);
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
