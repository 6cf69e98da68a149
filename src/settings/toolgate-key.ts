/**
 * toolgate's own `toolgate` settings key, merged over the levels — where a repository's files (`.claude/settings.json`,
 * `.claude/settings.local.json` and toolgate's beside them: a cloned repository can carry every one) may narrow what
 * toolgate protects, never widen it (issue 32, invariant 5). Claude Code has no such key, and so no trust dialog
 * in front of it: without this, a repository's `toolgate.bash.passEnv: ["*"]` handed the user's credentials to its
 * own scripts, `toolgate.redaction.enabled: false` showed them to the model, and `toolgate.bash.killGraceMs` kept
 * `mcp serve` running for as long as it liked after its client left.
 *
 * Every key has a rule (the tables below are typed over `ToolSettings`, so a new setting does not compile until it
 * has one). From a project's files:
 * - `free`: harmless (what is shown and how, models, caches, time limits of work that a cancel still ends) — merged
 *   as from any level;
 * - `safe-side`: a switch — honoured only towards its safe side (`redaction.enabled: true`);
 * - `at-most`: a limit on how long or how much something runs after it should stop — honoured at or below what the
 *   other levels give (else the default);
 * - `adds`: a list of what is protected — the project's entries are added to the other levels' (else the default
 *   list), never replace it;
 * - `never`: ignored (credentials passed through, the environment or sandbox under toolgate's key — Claude Code's own
 *   `env` and `sandbox` keys are read as Claude Code reads them);
 * - a key no table names is ignored too (fail closed). Each ignored key is a warning naming the file.
 * User, managed and `--settings` levels (and a program's options) are the person's: every key from them as written.
 * docs/security.md §5 has the table.
 */
import type { PermissionRuleSource } from '../tool/permission-types.js';
import type { ToolSettings } from '../tool/tool-use-context.js';
import { DEFAULT_SECRET_ENV_PATTERNS, type RedactionSettings } from '../execution/redaction.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_FILE_BYTES, DEFAULT_PROGRESS_INTERVAL_MS, MAX_TIMEOUT_MS, type BashToolSettings } from '../tools/bash/bash-settings.js';
import { DEFAULT_MAX_WEB_SEARCHES_PER_SESSION } from '../tools/web-search/limits.js';
import type { LspSettings } from '../tools/lsp/servers.js';
import type { MonitorSettings } from '../tools/monitor/index.js';
import type { ScheduleWakeupSettings } from '../tools/schedule-wakeup/index.js';

type Rule =
  | { readonly kind: 'free' }
  | { readonly kind: 'safe-side'; readonly safe: boolean; readonly byDefault: boolean; readonly what: string }
  | { readonly kind: 'at-most'; readonly byDefault: number }
  | { readonly kind: 'adds'; readonly byDefault?: readonly string[] }
  /** `redaction.secrets`: a list or a map of names to values; the project's are added, none replaced. */
  | { readonly kind: 'secrets' }
  | { readonly kind: 'never'; readonly why: string }
  | { readonly kind: 'nested'; readonly keys: Readonly<Record<string, Rule>> }
  /** `autoMode`: read level by level (agent/auto-mode-settings.ts), not from the merged key. */
  | { readonly kind: 'by-level' };

type Table<T> = { readonly [K in keyof T]-?: Rule };

const FREE: Rule = { kind: 'free' };
const never = (why: string): Rule => ({ kind: 'never', why });

const BASH: Table<BashToolSettings> = {
  // A command's default is clamped to `maxTimeoutMs`; the model can ask for up to that anyway.
  defaultTimeoutMs: FREE,
  maxTimeoutMs: { kind: 'at-most', byDefault: MAX_TIMEOUT_MS },
  disableBackgroundTasks: { kind: 'safe-side', safe: true, byDefault: false, what: 'would turn background tasks back on' },
  secretEnvPatterns: { kind: 'adds', byDefault: DEFAULT_SECRET_ENV_PATTERNS },
  passEnv: never('hands credentials to commands'),
  maxOutputFileBytes: { kind: 'at-most', byDefault: DEFAULT_MAX_OUTPUT_FILE_BYTES },
  // How soon a command's output file is seen to pass its size limit.
  progressIntervalMs: { kind: 'at-most', byDefault: DEFAULT_PROGRESS_INTERVAL_MS },
  killGraceMs: { kind: 'at-most', byDefault: DEFAULT_KILL_GRACE_MS },
  persistEnvironment: { kind: 'safe-side', safe: false, byDefault: true, what: "would let a command's exports reach the next command" },
};

const REDACTION: Table<RedactionSettings> = {
  enabled: { kind: 'safe-side', safe: true, byDefault: true, what: 'would show credentials to the model' },
  secrets: { kind: 'secrets' },
  secretFiles: { kind: 'adds' },
  envPatterns: { kind: 'adds', byDefault: DEFAULT_SECRET_ENV_PATTERNS },
  passEnv: never('shows credentials to the model'),
};

const LSP: Table<LspSettings> = {
  // A language server is a program toolgate starts with the person's rights, outside the sandbox.
  servers: never('starts programs (language servers) outside the sandbox'),
  requestTimeoutSeconds: FREE,
};

const MONITOR: Table<MonitorSettings> = { pollIntervalMs: FREE };

// A wait ends early on a message, a task event or an interrupt whatever its bounds.
const SCHEDULE_WAKEUP: Table<ScheduleWakeupSettings> = { minDelaySeconds: FREE, maxDelaySeconds: FREE };

const TOP: Table<ToolSettings> & { readonly conversationBudgetChars: Rule; readonly autoMode: Rule } = {
  requireReadBeforeWrite: { kind: 'safe-side', safe: true, byDefault: true, what: 'would let Edit and Write change files the model has not read' },
  env: never("sets the commands' environment: use Claude Code's `env` key"),
  baseEnv: never("is a program's option, not a setting"),
  sandbox: never("configures the sandbox: use Claude Code's `sandbox` key"),
  bashOutputMaxChars: FREE,
  bash: { kind: 'nested', keys: BASH },
  redaction: { kind: 'nested', keys: REDACTION },
  maxResultSizeChars: FREE,
  conversationBudgetChars: FREE,
  globRespectGitignore: FREE,
  globTimeoutMs: FREE,
  grepTimeoutMs: FREE,
  webSearchModel: FREE,
  webFetchModel: FREE,
  webFetchCacheTtlMs: FREE,
  maxWebSearchesPerSession: { kind: 'at-most', byDefault: DEFAULT_MAX_WEB_SEARCHES_PER_SESSION },
  autoMode: { kind: 'by-level' },
  lsp: { kind: 'nested', keys: LSP },
  monitor: { kind: 'nested', keys: MONITOR },
  scheduleWakeup: { kind: 'nested', keys: SCHEDULE_WAKEUP },
};

const PROJECT_SOURCES: ReadonlySet<PermissionRuleSource> = new Set(['projectSettings', 'localSettings']);

export interface ToolgateLevel {
  readonly source: PermissionRuleSource;
  readonly file: string;
  readonly toolgate?: Readonly<Record<string, unknown>>;
}

interface Narrowing {
  readonly file: string;
  readonly path: readonly string[];
  readonly rule: Rule;
  readonly value: unknown;
}

/** The merged `toolgate` key of `levels` (highest precedence first); what a project's files may not set is a warning. */
export function mergeToolgateKey(levels: readonly ToolgateLevel[], warnings: string[]): Record<string, unknown> {
  let merged: Record<string, unknown> = {};
  const narrowing: Narrowing[] = [];
  const ignored = new Map<string, string[]>();
  const ignore = (file: string, what: string) => ignored.set(file, [...(ignored.get(file) ?? []), what]);
  for (const level of [...levels].reverse()) {
    if (level.toolgate === undefined) continue;
    const own = PROJECT_SOURCES.has(level.source) ? split(level.toolgate, TOP, [], level.file, narrowing, ignore) : level.toolgate;
    merged = mergeRaw(merged, own) as Record<string, unknown>;
  }
  // After every other level: each narrows what the others give (shared before local, so both count).
  for (const n of narrowing) {
    const refused = narrow(merged, n);
    if (refused !== undefined) ignore(n.file, `"toolgate.${n.path.join('.')}"${refused}`);
  }
  for (const [file, what] of ignored) {
    warnings.push(
      `${file}: ${what.join(', ')} ${what.length === 1 ? 'is' : 'are'} ignored: a project's settings may narrow toolgate's protections, never widen them (set ${what.length === 1 ? 'it' : 'them'} in user settings or with --settings)`,
    );
  }
  return merged;
}

/** The part of a project's key merged as any level's; the rest goes to `narrowing` or is ignored. */
function split(
  raw: Readonly<Record<string, unknown>>,
  table: Readonly<Record<string, Rule>>,
  at: readonly string[],
  file: string,
  narrowing: Narrowing[],
  ignore: (file: string, what: string) => void,
): Record<string, unknown> {
  const free: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const path = [...at, key];
    const name = `"toolgate.${path.join('.')}"`;
    const rule = Object.hasOwn(table, key) ? table[key]! : undefined;
    if (rule === undefined) {
      ignore(file, `${name} (not a setting toolgate knows)`);
      continue;
    }
    switch (rule.kind) {
      case 'free':
        free[key] = value;
        break;
      case 'by-level':
        break;
      case 'never':
        ignore(file, `${name} (${rule.why})`);
        break;
      case 'nested': {
        if (!isPlainObject(value)) {
          ignore(file, `${name} (not an object)`);
          break;
        }
        const inner = split(value, rule.keys, path, file, narrowing, ignore);
        if (Object.keys(inner).length > 0) free[key] = inner;
        break;
      }
      default:
        narrowing.push({ file, path, rule, value });
    }
  }
  return free;
}

/** Applies a project's narrowing value to `merged`; returns why it was refused, or undefined when applied (or moot). */
function narrow(merged: Record<string, unknown>, n: Narrowing): string | undefined {
  const current = valueAt(merged, n.path);
  const decided = decide(n.rule, n.value, current);
  if (typeof decided === 'string') return decided;
  if (decided !== undefined && !setAt(merged, n.path, decided.value)) return ' (another level gives its group in a form toolgate cannot read)';
  return undefined;
}

/** What the project's `value` makes of the others' `current`: a value to set, nothing to do, or why it is refused. */
function decide(rule: Rule, value: unknown, current: unknown): { value: unknown } | string | undefined {
  switch (rule.kind) {
    case 'at-most': {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return ' (not a number)';
      const ceiling = typeof current === 'number' && Number.isFinite(current) ? current : rule.byDefault;
      return value > ceiling ? `: ${value} (above ${ceiling})` : { value };
    }
    case 'safe-side': {
      if (typeof value !== 'boolean') return ' (not true or false)';
      if (value === rule.safe) return { value };
      return value === (typeof current === 'boolean' ? current : rule.byDefault) ? undefined : `: ${value} (${rule.what})`;
    }
    case 'adds': {
      if (!isStringList(value)) return ' (not a list of strings)';
      const base = isStringList(current) ? current : (rule.byDefault ?? []);
      return { value: [...new Set([...base, ...value])] };
    }
    case 'secrets':
      if (current === undefined && (isStringList(value) || isStringMap(value))) return { value };
      if (isStringList(current) && isStringList(value)) return { value: [...new Set([...current, ...value])] };
      if (isStringMap(current) && isStringMap(value)) return { value: { ...value, ...current } };
      return ' (a list where another level has a map of names, or the other way round, or neither)';
    default:
      return ' (no rule)';
  }
}

function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = root;
  for (const key of path) at = isPlainObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
  return at;
}

/** Sets `path` in `root`, making the objects on the way; false when something else is in the way. */
function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): boolean {
  let at = root;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (next !== undefined && !isPlainObject(next)) return false;
    // Merged values may be a level's own object: copied before a change.
    at = at[key] = { ...(next ?? {}) };
  }
  at[path.at(-1)!] = value;
  return true;
}

/** Objects merge key by key (the later value wins scalars), arrays concatenate without duplicates. */
export function mergeRaw(lower: unknown, higher: unknown): unknown {
  if (Array.isArray(lower) && Array.isArray(higher)) return [...new Set([...lower, ...higher])];
  if (isPlainObject(lower) && isPlainObject(higher)) {
    const out: Record<string, unknown> = { ...lower };
    for (const [k, v] of Object.entries(higher)) out[k] = k in out ? mergeRaw(out[k], v) : v;
    return out;
  }
  return higher;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringList(v: unknown): v is readonly string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isStringMap(v: unknown): v is Readonly<Record<string, string>> {
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
}
