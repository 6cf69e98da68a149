/**
 * `loadSettings()`: Claude Code's settings files, unchanged, plus toolgate's own beside them, merged by the
 * documented precedence (highest first): managed policy → `--settings` files → command-line rules → local project →
 * shared project → user. Within one level toolgate's file comes after Claude Code's, so it wins scalar keys.
 *
 * Rules from every level are kept (each with its source, file and anchoring root): the engine makes a deny anywhere
 * beat an allow anywhere. Scalars (`defaultMode`) come from the highest level that sets them — a project's files may
 * only narrow the mode, never widen it; lists merge; `env` and `sandbox` merge key by key, higher levels winning; so
 * does toolgate's own `toolgate` key, except that a project's files may only narrow what it protects (toolgate-key.ts).
 */
import os from 'node:os';
import path from 'node:path';
import type {
  AdditionalWorkingDirectory,
  PermissionMode,
  PermissionRule,
  PermissionRuleSource,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import { isModeWithin } from '../permissions/mode-order.js';
import { createPermissionContext } from '../permissions/permission-context.js';
import { expandPath } from '../permissions/paths.js';
import { tryParsePermissionRule, validatePermissionRule } from '../permissions/permission-rule.js';
import { readSettingsFile, type SettingsError, type SettingsFileContent } from './read-settings-file.js';
import { isInlineJson } from '../tool/read-config-file.js';
import { mergeRaw, mergeToolgateKey } from './toolgate-key.js';
import { hookPolicyOf } from './hook-settings.js';
import type { HookPolicy } from '../hooks/hook-policy.js';

export type { SettingsError } from './read-settings-file.js';

/** Where `loadSettings` looks (project, home, managed policy), extra files and rules, and which sources to read. */
export interface LoadSettingsOptions {
  readonly cwd: string;
  /** Where `.claude/` and `.toolgate/` of the project live (default: cwd). */
  readonly projectDir?: string;
  readonly homeDir?: string;
  /** Default: `/etc/claude-code/managed-settings.json` (Linux), `/Library/Application Support/ClaudeCode/…` (macOS). */
  readonly managedSettingsPath?: string;
  /** `--settings` arguments: files or inline JSON, later ones winning. */
  readonly flagSettingsFiles?: readonly string[];
  /** `--allow/--deny/--ask` rules from the command line (source `cliArg`). */
  readonly cliRules?: { readonly allow?: readonly string[]; readonly deny?: readonly string[]; readonly ask?: readonly string[] };
  /** A mode chosen on the command line: beats every `defaultMode`. */
  readonly mode?: PermissionMode;
  /**
   * The session may enter bypassPermissions later (Shift+Tab, a hook's `setMode`) though it does not start in it:
   * Claude Code's `--allow-dangerously-skip-permissions`. Without it, only a session that starts in
   * bypassPermissions has the mode available (fail closed: nothing reaches bypass without asking for it).
   */
  readonly allowBypassPermissions?: boolean;
  /**
   * Which of the standard files to read (Claude Code's `--setting-sources`; default: all four). `--settings` files
   * and command-line rules are always read. `[]` reads no standard file at all (tests, servers).
   */
  readonly sources?: readonly SettingSourceName[];
}

/** The standard settings scopes, as Claude Code's `--setting-sources` names them. */
export type SettingSourceName = 'user' | 'project' | 'local' | 'managed';

const SCOPE_OF: Partial<Record<PermissionRuleSource, SettingSourceName>> = {
  policySettings: 'managed',
  localSettings: 'local',
  projectSettings: 'project',
  userSettings: 'user',
};

export interface HooksFromSource {
  readonly source: PermissionRuleSource;
  readonly file: string;
  /** The raw `hooks` object, for the hooks layer to parse. */
  readonly hooks: unknown;
}

/** The settings of a project, merged: the permission context, hooks, env, sandbox and toolgate keys, and the problems found. */
export interface LoadedSettings {
  readonly permissionContext: ToolPermissionContext;
  /** Highest precedence first. */
  readonly hooksBySource: readonly HooksFromSource[];
  /** Which hooks may run (`disableAllHooks`, `allowManagedHooksOnly`, the http lists): applied where hooks are parsed. */
  readonly hookPolicy: HookPolicy;
  /** The merged raw `sandbox` object (undefined when no file sets it). */
  readonly sandbox: unknown;
  readonly env: Readonly<Record<string, string>>;
  /** Each level's own `env`, highest precedence first (telemetry ignores what the project's files set). */
  readonly envBySource: readonly { readonly source: PermissionRuleSource; readonly env: Readonly<Record<string, string>> }[];
  /** Claude Code's `bashOutputMaxChars`, from the highest level that sets it. */
  readonly bashOutputMaxChars?: number;
  /**
   * toolgate's own `toolgate` key, merged key by key (higher levels winning), a project's files only narrowing what it
   * protects (toolgate-key.ts); `{}` when no file sets it.
   */
  readonly toolgate: Readonly<Record<string, unknown>>;
  /**
   * Auto mode's settings as each level wrote them, highest precedence first: Claude Code's `autoMode` and toolgate's
   * `toolgate.autoMode`, raw. Kept by level because a repository's committed settings may not configure the classifier.
   */
  readonly autoModeBySource: readonly { readonly source: PermissionRuleSource; readonly file: string; readonly autoMode?: unknown; readonly toolgateAutoMode?: unknown }[];
  /** Each level's `enabledPlugins` and `extraKnownMarketplaces`, raw, highest precedence first (plugin-install.ts). */
  readonly pluginsBySource: readonly { readonly source: PermissionRuleSource; readonly file: string; readonly enabledPlugins?: unknown; readonly extraKnownMarketplaces?: unknown }[];
  /** `permissions.disableAutoMode: "disable"` in any file read. */
  readonly autoModeDisabled: boolean;
  /** `disableSkillShellExecution: true` in any file read (a safety switch: no level can turn it back off). */
  readonly disableSkillShellExecution: boolean;
  /** Files consulted, highest precedence first, and whether each existed. */
  readonly files: readonly { source: PermissionRuleSource; file: string; found: boolean }[];
  readonly warnings: readonly string[];
  readonly errors: readonly SettingsError[];
}

export function defaultManagedSettingsPath(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode/managed-settings.json';
  if (platform === 'win32') return 'C:\\Program Files\\ClaudeCode\\managed-settings.json';
  return '/etc/claude-code/managed-settings.json';
}

interface Planned {
  readonly source: PermissionRuleSource;
  readonly file: string;
  readonly root: string;
}

/** Reads and merges the settings files Claude Code reads (and toolgate's own beside them), by documented precedence. */
export function loadSettings(options: LoadSettingsOptions): LoadedSettings {
  const cwd = path.resolve(options.cwd);
  const projectDir = path.resolve(cwd, options.projectDir ?? cwd);
  const homeDir = path.resolve(options.homeDir ?? os.homedir());
  const managed = options.managedSettingsPath ?? defaultManagedSettingsPath();
  const errors: SettingsError[] = [];
  const warnings: string[] = [];

  // Highest precedence first.
  const plan: Planned[] = [
    { source: 'policySettings', file: managed, root: projectDir },
    ...(options.flagSettingsFiles ?? []).map((f) => {
      const inline = isInlineJson(f);
      const file = inline ? f : path.resolve(cwd, f);
      return { source: 'flagSettings' as const, file, root: inline ? cwd : path.dirname(file) };
    }).reverse(),
    { source: 'localSettings', file: path.join(projectDir, '.toolgate', 'settings.local.json'), root: projectDir },
    { source: 'localSettings', file: path.join(projectDir, '.claude', 'settings.local.json'), root: projectDir },
    { source: 'projectSettings', file: path.join(projectDir, '.toolgate', 'settings.json'), root: projectDir },
    { source: 'projectSettings', file: path.join(projectDir, '.claude', 'settings.json'), root: projectDir },
    { source: 'userSettings', file: path.join(homeDir, '.toolgate', 'settings.json'), root: path.join(homeDir, '.toolgate') },
    { source: 'userSettings', file: path.join(homeDir, '.claude', 'settings.json'), root: path.join(homeDir, '.claude') },
  ];

  const contents: SettingsFileContent[] = [];
  const files: { source: PermissionRuleSource; file: string; found: boolean }[] = [];
  const wanted = options.sources === undefined ? undefined : new Set(options.sources);
  for (const p of plan) {
    const scope = SCOPE_OF[p.source];
    if (wanted !== undefined && scope !== undefined && !wanted.has(scope)) continue;
    const r = readSettingsFile(p);
    // A file named on purpose (`--settings`) that is not there is an error, not an empty level: a CI policy must not
    // run without its policy because of a typo (fail closed; claude exits 1 too).
    if (p.source === 'flagSettings' && !isInlineJson(p.file) && r.content === undefined && r.errors.length === 0) {
      errors.push({ file: p.file, message: 'settings file not found' });
    }
    errors.push(...r.errors);
    warnings.push(...r.warnings);
    files.push({ source: p.source, file: r.content?.file ?? p.file, found: r.content !== undefined || r.errors.length > 0 });
    if (r.content) contents.push(r.content);
  }
  const cliContent = cliRulesContent(options.cliRules, cwd, errors, warnings);
  // cliArg sits between flagSettings and localSettings.
  const firstLocal = contents.findIndex((c) => !['policySettings', 'flagSettings'].includes(c.source));
  contents.splice(firstLocal === -1 ? contents.length : firstLocal, 0, cliContent);

  const managedOnly = contents.some((c) => c.allowManagedPermissionRulesOnly);
  let rules: PermissionRule[] = contents.flatMap((c) => c.rules);
  if (managedOnly) {
    const dropped = rules.filter((r) => r.source !== 'policySettings');
    if (dropped.length > 0) warnings.push(`managed settings allow only managed permission rules: ${dropped.length} other rule(s) ignored`);
    rules = rules.filter((r) => r.source === 'policySettings');
  }

  const bypassDisabled = contents.some((c) => c.disableBypassPermissionsMode);
  const autoDisabled = contents.some((c) => c.disableAutoMode);
  let mode: PermissionMode = options.mode ?? startingMode(contents, warnings);
  if (mode === 'bypassPermissions' && bypassDisabled) {
    errors.push({ file: contents.find((c) => c.disableBypassPermissionsMode)!.file, key: 'permissions.disableBypassPermissionsMode', message: 'bypassPermissions mode is disabled by settings; using default mode' });
    mode = 'default';
  }
  if (mode === 'auto' && autoDisabled) {
    warnings.push('auto mode is disabled by settings; using default mode');
    mode = 'default';
  }

  const dirs: AdditionalWorkingDirectory[] = [];
  for (const c of contents) {
    const base = c.source === 'projectSettings' || c.source === 'localSettings' ? projectDir : cwd;
    for (const d of c.additionalDirectories) dirs.push({ path: expandPath(d, base, homeDir), source: c.source });
  }

  const env: Record<string, string> = {};
  for (const c of [...contents].reverse()) Object.assign(env, c.env);
  let sandbox: unknown;
  for (const c of [...contents].reverse()) if (c.sandbox !== undefined) sandbox = mergeRaw(sandbox, c.sandbox);
  const toolgate = mergeToolgateKey(contents, warnings);
  const bashOutputMaxChars = contents.find((c) => c.bashOutputMaxChars !== undefined)?.bashOutputMaxChars;

  const permissionContext = createPermissionContext({
    cwd,
    projectDir,
    homeDir,
    mode,
    additionalDirectories: dirs,
    rules,
    isBypassPermissionsModeAvailable: !bypassDisabled && (mode === 'bypassPermissions' || options.allowBypassPermissions === true),
  });
  return {
    permissionContext,
    hooksBySource: contents.filter((c) => c.hooks !== undefined).map((c) => ({ source: c.source, file: c.file, hooks: c.hooks })),
    hookPolicy: hookPolicyOf(contents, warnings),
    sandbox,
    env,
    envBySource: contents.filter((c) => Object.keys(c.env).length > 0).map((c) => ({ source: c.source, env: c.env })),
    ...(bashOutputMaxChars !== undefined ? { bashOutputMaxChars } : {}),
    toolgate,
    autoModeBySource: contents
      .filter((c) => c.autoMode !== undefined || c.toolgate?.autoMode !== undefined)
      .map((c) => ({ source: c.source, file: c.file, ...(c.autoMode !== undefined ? { autoMode: c.autoMode } : {}), ...(c.toolgate?.autoMode !== undefined ? { toolgateAutoMode: c.toolgate.autoMode } : {}) })),
    autoModeDisabled: autoDisabled,
    pluginsBySource: contents
      .filter((c) => c.enabledPlugins !== undefined || c.extraKnownMarketplaces !== undefined)
      .map((c) => ({ source: c.source, file: c.file, ...(c.enabledPlugins !== undefined ? { enabledPlugins: c.enabledPlugins } : {}), ...(c.extraKnownMarketplaces !== undefined ? { extraKnownMarketplaces: c.extraKnownMarketplaces } : {}) })),
    disableSkillShellExecution: contents.some((c) => c.disableSkillShellExecution === true),
    files,
    warnings,
    errors,
  };
}

/** The levels a repository can commit (`.claude/settings.json`, `.claude/settings.local.json`): they narrow, never widen. */
export const PROJECT_SOURCES: ReadonlySet<PermissionRuleSource> = new Set(['projectSettings', 'localSettings']);

/**
 * `defaultMode` from the highest level that sets it — except that the project's files (`.claude/settings.json`,
 * `.claude/settings.local.json`, toolgate's beside them: a cloned repository can carry both) may only narrow the mode
 * the other levels give (`default` when none does): a wider one is ignored, with a warning (permissions/mode-order.ts).
 */
function startingMode(contents: readonly SettingsFileContent[], warnings: string[]): PermissionMode {
  const highest = contents.find((c) => c.defaultMode !== undefined);
  if (highest === undefined) return 'default';
  if (!PROJECT_SOURCES.has(highest.source)) return highest.defaultMode!;
  const trusted = contents.find((c) => !PROJECT_SOURCES.has(c.source) && c.defaultMode !== undefined)?.defaultMode ?? 'default';
  if (isModeWithin(highest.defaultMode!, trusted)) return highest.defaultMode!;
  warnings.push(
    `${highest.file}: "permissions.defaultMode": "${highest.defaultMode}" is ignored: a project's settings may narrow the permission mode, never widen it (the mode stays "${trusted}"; choose a wider one in user settings or with --permission-mode)`,
  );
  return trusted;
}

function cliRulesContent(
  cli: LoadSettingsOptions['cliRules'],
  cwd: string,
  errors: SettingsError[],
  warnings: string[],
): SettingsFileContent {
  const rules: PermissionRule[] = [];
  for (const behavior of ['allow', 'deny', 'ask'] as const) {
    for (const text of cli?.[behavior] ?? []) {
      const parsed = tryParsePermissionRule(text);
      const where = `--${behavior}`;
      if (!parsed.ok) {
        errors.push({ file: 'command line', key: where, rule: text, message: `${where}: ${parsed.error.problem} in rule ${JSON.stringify(text)}` });
        continue;
      }
      const check = validatePermissionRule(parsed.value, behavior);
      for (const w of check.warnings) warnings.push(`command line ${where} ${JSON.stringify(text)}: ${w}`);
      if (check.errors.length > 0) {
        for (const e of check.errors) errors.push({ file: 'command line', key: where, rule: text, message: `${where}: ${e} in rule ${JSON.stringify(text)}` });
        continue;
      }
      rules.push({ source: 'cliArg', ruleBehavior: behavior, ruleValue: parsed.value, sourceFile: 'command line', root: cwd });
    }
  }
  return {
    source: 'cliArg',
    file: 'command line',
    rules,
    additionalDirectories: [],
    disableBypassPermissionsMode: false,
    disableAutoMode: false,
    allowManagedPermissionRulesOnly: false,
    env: {},
  };
}
