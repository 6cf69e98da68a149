/**
 * One settings file, read and checked: JSON syntax errors with line and column, wrong types by key, malformed rules by
 * key, index and text. A missing file is not an error (most scopes have none); an unknown key is a warning.
 */
import type { PermissionBehavior, PermissionMode, PermissionRule, PermissionRuleSource } from '../tool/permission-types.js';
import { PERMISSION_MODES } from '../tool/permission-types.js';
import { tryParsePermissionRule, validatePermissionRule } from '../permissions/permission-rule.js';
import { formatPermissionRule } from '../permissions/permission-rule.js';
import { parseExpiry } from '../permissions/permission-updates.js';
import { locateJsonError } from './locate-json-error.js';
import { isInlineJson, parseConfigJson, readConfigText } from '../tool/read-config-file.js';
import { KNOWN_PERMISSION_KEYS, KNOWN_TOP_LEVEL_KEYS } from './settings-keys.js';
import { readHookSettingsKeys, type HookSettingsKeys } from './hook-settings.js';

/** A problem in a settings file: the file, the key and what is wrong. */
export interface SettingsError {
  /** The settings file (or `--settings` inline JSON) the problem is in. */
  readonly file: string;
  /** The key path, e.g. `permissions.allow[2]`. */
  readonly key?: string;
  /** The rule text, for rule errors. */
  readonly rule?: string;
  readonly message: string;
}

/** What one file contributes, already checked. */
export interface SettingsFileContent {
  readonly source: PermissionRuleSource;
  readonly file: string;
  readonly rules: PermissionRule[];
  readonly defaultMode?: PermissionMode;
  readonly additionalDirectories: string[];
  readonly disableBypassPermissionsMode: boolean;
  readonly disableAutoMode: boolean;
  readonly allowManagedPermissionRulesOnly: boolean;
  readonly hooks?: unknown;
  /** `disableAllHooks`, `allowManagedHooksOnly`, `allowedHttpHookUrls`, `httpHookAllowedEnvVars` (hook-settings.ts). */
  readonly hookSettings?: HookSettingsKeys;
  readonly sandbox?: unknown;
  readonly env: Record<string, string>;
  /** Claude Code's inline Bash output limit, unchecked beyond being a number. */
  readonly bashOutputMaxChars?: number;
  /** toolgate's own key: tool settings by name (raw, merged key by key across files). */
  readonly toolgate?: Record<string, unknown>;
  /** Claude Code's `disableSkillShellExecution`: skills' and commands' `!` lines are not run. */
  readonly disableSkillShellExecution?: boolean;
  /** Claude Code's `autoMode` (the classifier's prose), raw: the agent layer reads it (src/agent/auto-mode-settings.ts). */
  readonly autoMode?: unknown;
  /** Claude Code's `enabledPlugins` and `extraKnownMarketplaces`, raw: settings/plugin-install.ts reads them. */
  readonly enabledPlugins?: unknown;
  readonly extraKnownMarketplaces?: unknown;
}

export interface ReadResult {
  readonly content?: SettingsFileContent;
  readonly errors: SettingsError[];
  readonly warnings: string[];
}

export interface ReadOptions {
  readonly source: PermissionRuleSource;
  /** A path, or inline JSON (a `--settings '{…}'` argument). */
  readonly file: string;
  /** The folder `/path` rules of this file are anchored at. */
  readonly root: string;
}

export function readSettingsFile(options: ReadOptions): ReadResult {
  const { file } = options;
  const inline = isInlineJson(file);
  let text: string;
  if (inline) {
    text = file;
  } else {
    const read = readConfigText(file);
    if (read.kind === 'missing') return { errors: [], warnings: [] };
    if (read.kind === 'error') return { errors: [{ file, message: `cannot read settings file: ${read.message}` }], warnings: [] };
    text = read.text;
  }
  const label = inline ? '--settings (inline JSON)' : file;
  if (text.trim() === '') return { content: emptyContent(options.source, label), errors: [], warnings: [] };
  const parsed = parseConfigJson(text);
  if (!parsed.ok) {
    if (parsed.problem === 'depth') return { errors: [{ file: label, key: parsed.key, message: parsed.message }], warnings: [] };
    return { errors: [{ file: label, message: `invalid JSON: ${describeJsonError(parsed.error, text)}` }], warnings: [] };
  }
  return checkSettings(parsed.json, { ...options, file: label });
}

function emptyContent(source: PermissionRuleSource, file: string): SettingsFileContent {
  return {
    source,
    file,
    rules: [],
    additionalDirectories: [],
    disableBypassPermissionsMode: false,
    disableAutoMode: false,
    allowManagedPermissionRulesOnly: false,
    env: {},
  };
}

function describeJsonError(error: unknown, text: string): string {
  const where = locateJsonError(text);
  if (where) return `${where.problem} at line ${where.line}, column ${where.column}`;
  return error instanceof Error ? error.message : String(error);
}

/** Checks parsed settings; exported for tests and for settings given as objects. */
export function checkSettings(json: unknown, options: ReadOptions): ReadResult {
  const { file, source, root } = options;
  const errors: SettingsError[] = [];
  const warnings: string[] = [];
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { errors: [{ file, message: 'settings must be a JSON object' }], warnings };
  }
  const obj = json as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!KNOWN_TOP_LEVEL_KEYS.has(key)) warnings.push(`${file}: unknown settings key "${key}" (ignored)`);
  }
  const content = { ...emptyContent(source, file), rules: [] as PermissionRule[] };
  let defaultMode: PermissionMode | undefined;
  let disableBypass = false;
  let disableAuto = obj.disableAutoMode === 'disable';
  const perms = obj.permissions;
  if (perms !== undefined) {
    if (perms === null || typeof perms !== 'object' || Array.isArray(perms)) {
      errors.push({ file, key: 'permissions', message: '"permissions" must be an object' });
    } else {
      const p = perms as Record<string, unknown>;
      for (const key of Object.keys(p)) {
        if (!KNOWN_PERMISSION_KEYS.has(key)) warnings.push(`${file}: unknown key "permissions.${key}" (ignored)`);
      }
      for (const behavior of ['allow', 'deny', 'ask'] as const) {
        content.rules.push(...readRules(p[behavior], behavior, { file, source, root }, errors, warnings));
      }
      if (p.expires !== undefined) content.rules = applyExpiries(content.rules, p.expires, file, errors, warnings);
      if (p.defaultMode !== undefined) defaultMode = readMode(p.defaultMode, file, source, errors, warnings);
      content.additionalDirectories = readStringList(p.additionalDirectories, 'permissions.additionalDirectories', file, errors);
      disableBypass = readDisable(p.disableBypassPermissionsMode, 'permissions.disableBypassPermissionsMode', file, errors);
      disableAuto = disableAuto || readDisable(p.disableAutoMode, 'permissions.disableAutoMode', file, errors);
    }
  }
  const env: Record<string, string> = {};
  if (obj.env !== undefined) {
    if (obj.env === null || typeof obj.env !== 'object' || Array.isArray(obj.env)) {
      errors.push({ file, key: 'env', message: '"env" must be an object of strings' });
    } else {
      for (const [k, v] of Object.entries(obj.env as Record<string, unknown>)) {
        if (typeof v === 'string') env[k] = v;
        else if (typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
        else errors.push({ file, key: `env.${k}`, message: `"env.${k}" must be a string` });
      }
    }
  }
  if (obj.hooks !== undefined && (obj.hooks === null || typeof obj.hooks !== 'object' || Array.isArray(obj.hooks))) {
    errors.push({ file, key: 'hooks', message: '"hooks" must be an object keyed by event name' });
  }
  let toolgate: Record<string, unknown> | undefined;
  if (obj.toolgate !== undefined) {
    if (obj.toolgate === null || typeof obj.toolgate !== 'object' || Array.isArray(obj.toolgate)) {
      errors.push({ file, key: 'toolgate', message: '"toolgate" must be an object of tool settings' });
    } else toolgate = obj.toolgate as Record<string, unknown>;
  }
  let bashOutputMaxChars: number | undefined;
  if (obj.bashOutputMaxChars !== undefined) {
    if (typeof obj.bashOutputMaxChars === 'number' && Number.isFinite(obj.bashOutputMaxChars) && obj.bashOutputMaxChars > 0) {
      bashOutputMaxChars = obj.bashOutputMaxChars;
    } else errors.push({ file, key: 'bashOutputMaxChars', message: '"bashOutputMaxChars" must be a positive number' });
  }
  if (obj.disableSkillShellExecution !== undefined && typeof obj.disableSkillShellExecution !== 'boolean') {
    errors.push({ file, key: 'disableSkillShellExecution', message: '"disableSkillShellExecution" must be true or false' });
  }
  if (obj.sandbox !== undefined && (obj.sandbox === null || typeof obj.sandbox !== 'object' || Array.isArray(obj.sandbox))) {
    errors.push({ file, key: 'sandbox', message: '"sandbox" must be an object' });
  }
  const hookSettings = readHookSettingsKeys(obj, file, errors);
  const managedOnly = obj.allowManagedPermissionRulesOnly === true;
  if (managedOnly && source !== 'policySettings') {
    warnings.push(`${file}: "allowManagedPermissionRulesOnly" is only honoured in managed settings (ignored)`);
  }
  return {
    content: {
      ...content,
      ...(defaultMode !== undefined ? { defaultMode } : {}),
      disableBypassPermissionsMode: disableBypass,
      disableAutoMode: disableAuto,
      allowManagedPermissionRulesOnly: managedOnly && source === 'policySettings',
      ...(obj.hooks !== undefined && errors.every((e) => e.key !== 'hooks') ? { hooks: obj.hooks } : {}),
      ...(hookSettings !== undefined ? { hookSettings } : {}),
      ...(obj.sandbox !== undefined && errors.every((e) => e.key !== 'sandbox') ? { sandbox: obj.sandbox } : {}),
      ...(toolgate !== undefined ? { toolgate } : {}),
      ...(bashOutputMaxChars !== undefined ? { bashOutputMaxChars } : {}),
      ...(typeof obj.disableSkillShellExecution === 'boolean' ? { disableSkillShellExecution: obj.disableSkillShellExecution } : {}),
      ...(obj.autoMode !== undefined ? { autoMode: obj.autoMode } : {}),
      ...(obj.enabledPlugins !== undefined ? { enabledPlugins: obj.enabledPlugins } : {}),
      ...(obj.extraKnownMarketplaces !== undefined ? { extraKnownMarketplaces: obj.extraKnownMarketplaces } : {}),
      env,
    },
    errors,
    warnings,
  };
}

function readRules(
  value: unknown,
  behavior: PermissionBehavior,
  where: { file: string; source: PermissionRuleSource; root: string },
  errors: SettingsError[],
  warnings: string[],
): PermissionRule[] {
  if (value === undefined) return [];
  const key = `permissions.${behavior}`;
  if (!Array.isArray(value)) {
    errors.push({ file: where.file, key, message: `"${key}" must be an array of rule strings` });
    return [];
  }
  const rules: PermissionRule[] = [];
  value.forEach((item, i) => {
    const itemKey = `${key}[${i}]`;
    if (typeof item !== 'string') {
      errors.push({ file: where.file, key: itemKey, message: `"${itemKey}" must be a string, got ${JSON.stringify(item)}` });
      return;
    }
    const parsed = tryParsePermissionRule(item);
    if (!parsed.ok) {
      errors.push({ file: where.file, key: itemKey, rule: item, message: `${itemKey}: ${parsed.error.problem} in rule ${JSON.stringify(item)}` });
      return;
    }
    const check = validatePermissionRule(parsed.value, behavior);
    for (const w of check.warnings) warnings.push(`${where.file}: ${itemKey} ${JSON.stringify(item)}: ${w}`);
    if (check.errors.length > 0) {
      for (const e of check.errors) errors.push({ file: where.file, key: itemKey, rule: item, message: `${itemKey}: ${e} in rule ${JSON.stringify(item)}` });
      return;
    }
    rules.push({ source: where.source, ruleBehavior: behavior, ruleValue: parsed.value, sourceFile: where.file, root: where.root });
  });
  return rules;
}

const SETTABLE_MODES = new Set<string>(PERMISSION_MODES.filter((m) => m !== 'bubble'));

function readMode(value: unknown, file: string, source: PermissionRuleSource, errors: SettingsError[], warnings: string[]): PermissionMode | undefined {
  const mode = value === 'manual' ? 'default' : value;
  if (typeof mode !== 'string' || !SETTABLE_MODES.has(mode)) {
    errors.push({ file, key: 'permissions.defaultMode', message: `"permissions.defaultMode" must be one of ${[...SETTABLE_MODES, 'manual'].join(', ')}; got ${JSON.stringify(value)}` });
    return undefined;
  }
  if (mode === 'auto' && (source === 'projectSettings' || source === 'localSettings')) {
    warnings.push(`${file}: "permissions.defaultMode": "auto" is ignored in project and local settings`);
    return undefined;
  }
  return mode as PermissionMode;
}

function readStringList(value: unknown, key: string, file: string, errors: SettingsError[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    errors.push({ file, key, message: `"${key}" must be an array of strings` });
    return [];
  }
  return value as string[];
}

function readDisable(value: unknown, key: string, file: string, errors: SettingsError[]): boolean {
  if (value === undefined || value === false) return false;
  if (value === 'disable' || value === true) return true;
  // Fail closed: an unreadable "disable" switch still disables.
  errors.push({ file, key, message: `"${key}" accepts only "disable"; got ${JSON.stringify(value)} (treated as "disable")` });
  return true;
}

/**
 * `permissions.expires`: `{ "<allow rule>": "<ISO date>" }`, toolgate's extension beside `permissions.allow`. An
 * unreadable date makes the rule count as expired (fail closed); deny and ask rules never expire.
 */
function applyExpiries(rules: PermissionRule[], value: unknown, file: string, errors: SettingsError[], warnings: string[]): PermissionRule[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ file, key: 'permissions.expires', message: '"permissions.expires" must be an object of rule → ISO date' });
    return rules;
  }
  const byRule = new Map<string, string>();
  for (const [text, date] of Object.entries(value as Record<string, unknown>)) {
    const parsed = tryParsePermissionRule(text);
    const key = `permissions.expires[${JSON.stringify(text)}]`;
    if (!parsed.ok) {
      errors.push({ file, key, rule: text, message: `${key}: ${parsed.error.problem}` });
      continue;
    }
    const iso = parseExpiry(date);
    if (iso === undefined) errors.push({ file, key, rule: text, message: `${key} must be an ISO date; the rule is treated as expired` });
    byRule.set(formatPermissionRule(parsed.value), iso ?? String(date));
  }
  const used = new Set<string>();
  const out = rules.map((r) => {
    const text = formatPermissionRule(r.ruleValue);
    const at = r.ruleBehavior === 'allow' ? byRule.get(text) : undefined;
    if (at === undefined) return r;
    used.add(text);
    return { ...r, expiresAt: at };
  });
  for (const text of byRule.keys()) if (!used.has(text)) warnings.push(`${file}: permissions.expires names ${text}, which is not in permissions.allow (ignored)`);
  return out;
}
