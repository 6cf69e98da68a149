/**
 * Settings changed while a session runs (the Agent SDK's `applyFlagSettings`, `updateSettings` and
 * `setMcpPermissionModeOverride`), fail closed:
 * - The flag layer is what a session may change live: `permissions` (`allow`, `deny`, `ask`, `defaultMode`) and
 *   `model`. Any other key is refused with its name, and a refused call applies nothing (the earlier calls stay).
 *   Successive calls replace a key as a whole; `null` clears it.
 * - Managed policy still wins: under `allowManagedPermissionRulesOnly` a flag setting may add deny rules but no allow
 *   or ask rule; `defaultMode` cannot reach a mode the policy (or the session's start) made unavailable; and a deny
 *   rule of any level beats a flag allow, as every deny beats every allow (the one rule matcher).
 * - `updateSettings` writes only Claude Code's allowlisted keys (localSettings: `outputStyle`, userSettings:
 *   `effortLevel`, strings) to the settings file of a source the session reads, through the settings files' writer.
 * - An MCP server's mode override only narrows: when the session's mode would allow its calls without asking
 *   (bypassPermissions, auto), they are asked for instead (a PreToolUse `ask`; headless, that is a denial).
 */
import path from 'node:path';
import { defaultManagedSettingsPath } from '../settings/load-settings.js';
import { readSettingsFile } from '../settings/read-settings-file.js';
import { editSettingsFile, grantFile } from '../settings/grants.js';
import { ensureGitIgnored } from '../settings/git-ignore-local.js';
import { buildMcpToolName } from '../mcp/names.js';
import { tryParsePermissionRule } from '../permissions/permission-rule.js';
import type { HookCallback } from '../hooks/types.js';
import { PERMISSION_MODES, type PermissionBehavior, type PermissionMode, type PermissionRuleValue, type PermissionUpdate, type ToolPermissionContext } from '../tool/permission-types.js';
import type { SettingSource, ToolRuntime } from '../agent/types.js';
import { seedReadState } from '../agent/read-state-seed.js';
import { commandCatalogOf, listSlashCommands, type SlashCommandInfo } from '../agent/slash-commands.js';
import type { McpClientManager } from '../mcp/manager.js';
import type { McpResourceContent } from '../mcp/manager.js';

export class SettingsChangeError extends Error {
  override readonly name = 'SettingsChangeError';
}

/** What the machine's managed settings forbid a flag setting (read from the managed settings file when asked). */
export interface ManagedPolicy {
  readonly managedRulesOnly: boolean;
  readonly bypassDisabled: boolean;
  readonly autoDisabled: boolean;
}

export function readManagedPolicy(managedSettingsPath: string = defaultManagedSettingsPath()): ManagedPolicy {
  const read = readSettingsFile({ file: managedSettingsPath, source: 'policySettings', root: path.dirname(managedSettingsPath) });
  // A managed file that cannot be read could be the one that forbids: nothing is changed then.
  if (read.errors.length > 0) throw new SettingsChangeError(`the managed settings could not be read, so no setting is changed: ${read.errors.map((e) => e.message).join('; ')}`);
  const c = read.content;
  return { managedRulesOnly: c?.allowManagedPermissionRulesOnly === true, bypassDisabled: c?.disableBypassPermissionsMode === true, autoDisabled: c?.disableAutoMode === true };
}

const BEHAVIORS: readonly PermissionBehavior[] = ['allow', 'deny', 'ask'];
const LIVE_KEYS = new Set(['permissions', 'model']);
const PERMISSION_KEYS = new Set(['allow', 'deny', 'ask', 'defaultMode']);

/** What one `applyFlagSettings` call comes to, checked whole before anything applies. */
export interface FlagChange {
  /** The rules of the flag layer after the call (undefined: `permissions` not in the call). */
  readonly rules?: Readonly<Record<PermissionBehavior, readonly PermissionRuleValue[]>>;
  readonly mode?: PermissionMode;
  /** `null`: back to the session's default model. */
  readonly model?: string | null;
}

export function checkFlagSettings(settings: unknown, ctx: ToolPermissionContext, policy: ManagedPolicy): FlagChange {
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) throw new SettingsChangeError('applyFlagSettings(settings): settings must be an object');
  const entries = Object.entries(settings).filter(([, v]) => v !== undefined);
  const other = entries.map(([k]) => k).filter((k) => !LIVE_KEYS.has(k));
  if (other.length > 0) throw new SettingsChangeError(`applyFlagSettings: toolgate changes only "permissions" and "model" while a session runs; ${other.map((k) => JSON.stringify(k)).join(', ')} need a new session (options.settings). Nothing was applied.`);
  const given = Object.fromEntries(entries) as { permissions?: unknown; model?: unknown };
  const change: { rules?: Record<PermissionBehavior, PermissionRuleValue[]>; mode?: PermissionMode; model?: string | null } = {};
  if (given.model !== undefined) {
    if (given.model !== null && (typeof given.model !== 'string' || given.model.trim() === '')) throw new SettingsChangeError('applyFlagSettings: "model" must be a model name or null');
    change.model = given.model;
  }
  if (given.permissions === undefined) return change;
  change.rules = { allow: [], deny: [], ask: [] };
  if (given.permissions === null) return change;
  if (typeof given.permissions !== 'object' || Array.isArray(given.permissions)) throw new SettingsChangeError('applyFlagSettings: "permissions" must be an object or null');
  const p = given.permissions as Record<string, unknown>;
  const odd = Object.keys(p).filter((k) => !PERMISSION_KEYS.has(k) && p[k] !== undefined);
  if (odd.length > 0) throw new SettingsChangeError(`applyFlagSettings: toolgate changes only permissions.allow, deny, ask and defaultMode while a session runs, not ${odd.map((k) => `permissions.${k}`).join(', ')}. Nothing was applied.`);
  for (const behavior of BEHAVIORS) {
    const list = p[behavior];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || !list.every((r) => typeof r === 'string')) throw new SettingsChangeError(`applyFlagSettings: permissions.${behavior} must be a list of rules`);
    for (const text of list as string[]) {
      const parsed = tryParsePermissionRule(text);
      if (!parsed.ok) throw new SettingsChangeError(`applyFlagSettings: permissions.${behavior}: ${parsed.error}. Nothing was applied.`);
      change.rules[behavior].push(parsed.value);
    }
  }
  if (policy.managedRulesOnly && change.rules.allow.length + change.rules.ask.length > 0) {
    throw new SettingsChangeError('applyFlagSettings: the managed settings allow only managed permission rules (allowManagedPermissionRulesOnly): a flag setting may add deny rules, not allow or ask rules. Nothing was applied.');
  }
  const mode = p.defaultMode;
  if (mode !== undefined && mode !== null) {
    if (typeof mode !== 'string' || !(PERMISSION_MODES as readonly string[]).includes(mode)) throw new SettingsChangeError(`applyFlagSettings: permissions.defaultMode ${JSON.stringify(mode)} is not a permission mode`);
    if (mode === 'bypassPermissions' && (policy.bypassDisabled || !ctx.isBypassPermissionsModeAvailable)) {
      throw new SettingsChangeError('applyFlagSettings: bypassPermissions is not available in this session (disabled by managed settings, or the session did not allow it at start). Nothing was applied.');
    }
    if (mode === 'auto' && (policy.autoDisabled || ctx.isAutoModeAvailable !== true)) throw new SettingsChangeError('applyFlagSettings: auto mode is not available in this session. Nothing was applied.');
    change.mode = mode as PermissionMode;
  }
  return change;
}

/** The permission updates that take the flag layer's rules from `before` to `after` (held as session rules). */
export function flagRuleUpdates(before: Readonly<Record<PermissionBehavior, readonly PermissionRuleValue[]>>, after: Readonly<Record<PermissionBehavior, readonly PermissionRuleValue[]>>): PermissionUpdate[] {
  const updates: PermissionUpdate[] = [];
  for (const behavior of BEHAVIORS) {
    if (before[behavior].length > 0) updates.push({ type: 'removeRules', rules: before[behavior], behavior, destination: 'session' });
    if (after[behavior].length > 0) updates.push({ type: 'addRules', rules: after[behavior], behavior, destination: 'session' });
  }
  return updates;
}

export const NO_FLAG_RULES: Readonly<Record<PermissionBehavior, readonly PermissionRuleValue[]>> = { allow: [], deny: [], ask: [] };

const UPDATABLE: Readonly<Record<'localSettings' | 'userSettings', { key: string; source: SettingSource }>> = {
  localSettings: { key: 'outputStyle', source: 'local' },
  userSettings: { key: 'effortLevel', source: 'user' },
};

/** `updateSettings(source, settings)`: Claude Code's allowlisted keys written to that source's file; returns the file. */
export function updateSettingsFile(source: unknown, settings: unknown, where: { readonly projectDir: string; readonly homeDir: string; readonly sources: readonly SettingSource[] }): string {
  if (source !== 'localSettings' && source !== 'userSettings') throw new SettingsChangeError(`updateSettings: source must be "localSettings" or "userSettings", not ${JSON.stringify(source)}`);
  const allowed = UPDATABLE[source];
  if (!where.sources.includes(allowed.source)) throw new SettingsChangeError(`updateSettings: this session does not read ${source} (settingSources), so it does not write it either`);
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) throw new SettingsChangeError('updateSettings: settings must be an object');
  const entries = Object.entries(settings);
  const bad = entries.filter(([k, v]) => k !== allowed.key || typeof v !== 'string');
  if (entries.length === 0 || bad.length > 0) throw new SettingsChangeError(`updateSettings: ${source} takes only "${allowed.key}" with a string value${bad.length > 0 ? `, not ${bad.map(([k]) => JSON.stringify(k)).join(', ')}` : ''}`);
  const file = grantFile(source, { projectDir: where.projectDir, homeDir: where.homeDir });
  const written = editSettingsFile(
    file,
    (s) => {
      (s as Record<string, unknown>)[allowed.key] = entries[0]![1];
      return true;
    },
    source === 'localSettings' ? { within: where.projectDir } : {},
  );
  if (!written) throw new SettingsChangeError(`updateSettings: ${file} could not be written (not valid JSON?)`);
  if (source === 'localSettings') ensureGitIgnored(file);
  return file;
}

/** Per-server overrides of `setMcpPermissionModeOverride`, read by one PreToolUse callback of the session's. */
export class McpModeOverrides {
  readonly #modes = new Map<string, 'default' | 'auto'>();

  set(server: string, mode: 'default' | 'auto' | null): void {
    if (mode === null) this.#modes.delete(server);
    else if (mode === 'default' || mode === 'auto') this.#modes.set(server, mode);
    else throw new SettingsChangeError(`setMcpPermissionModeOverride: mode must be "default", "auto" or null, not ${JSON.stringify(mode)}`);
  }

  /**
   * The session's hook: a call to an overridden server's tool that the mode would let through unasked is asked for.
   * `auto` under bypassPermissions would go to auto mode's classifier in Claude Code; here it is asked for too (stricter).
   */
  hook(): HookCallback {
    return {
      event: 'PreToolUse',
      name: 'setMcpPermissionModeOverride',
      callback: async (input) => {
        const mode = input.permission_mode;
        const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
        for (const [server, override] of this.#modes) {
          if (!tool.startsWith(buildMcpToolName(server, ''))) continue;
          if (mode === 'bypassPermissions' || (mode === 'auto' && override === 'default')) {
            return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: `MCP server "${server}" has the permission mode override "${override}": its calls are asked for` } };
          }
        }
        return {};
      },
    };
  }
}

/** What the session's live verbs need of it (live-settings.test.ts makes one by hand). */
export interface LiveTarget {
  readonly runtime: ToolRuntime;
  readonly mcp?: McpClientManager;
  readonly homeDir: string;
  readonly sources: readonly SettingSource[];
  /** The managed settings file (default: the machine's). */
  readonly managedSettingsPath?: string;
  readonly signal: AbortSignal;
  setModel(model: string | undefined): void;
}

/**
 * One session's verbs that change what it reads while it runs (`session.live`): the flag settings layer, settings
 * files, what the model has read, the skills folders, MCP resources and the MCP servers' mode overrides.
 */
export class LiveSettings {
  #flagRules: Readonly<Record<PermissionBehavior, readonly PermissionRuleValue[]>> = NO_FLAG_RULES;
  readonly #mcpModes = new McpModeOverrides();

  constructor(private readonly target: () => Promise<LiveTarget>) {}

  /** The session's PreToolUse callback for the MCP servers' mode overrides. */
  hook(): HookCallback {
    return this.#mcpModes.hook();
  }

  /** The flag layer changed: permissions and model only, checked whole first (nothing applies when one key is refused). */
  async applyFlagSettings(settings: unknown): Promise<void> {
    const target = await this.target();
    const change = checkFlagSettings(settings, target.runtime.permissionContext, readManagedPolicy(target.managedSettingsPath));
    if (change.rules) {
      const saved = await target.runtime.applyPermissionUpdates(flagRuleUpdates(this.#flagRules, change.rules), { save: false });
      if (saved.errors.length > 0) throw new SettingsChangeError(`applyFlagSettings: ${saved.errors.join('; ')}`);
      this.#flagRules = change.rules;
    }
    if (change.mode !== undefined) target.runtime.setMode(change.mode);
    if (change.model !== undefined) target.setModel(change.model ?? undefined);
  }

  /** Claude Code's allowlisted keys written to a settings file the session reads; returns the file. */
  async updateSettings(source: unknown, settings: unknown): Promise<string> {
    const target = await this.target();
    return updateSettingsFile(source, settings, { projectDir: target.runtime.permissionContext.projectDir, homeDir: target.homeDir, sources: target.sources });
  }

  /** The file counts as read (an Edit needs no Read first) unless it changed since `mtimeMs`; false when skipped. */
  async seedReadState(file: string, mtimeMs: number): Promise<boolean> {
    return seedReadState((await this.target()).runtime, file, mtimeMs);
  }

  /** The skills and commands folders read again; the Skill tool offers what is there now. */
  async reloadSkills(): Promise<SlashCommandInfo[]> {
    const { runtime } = await this.target();
    commandCatalogOf(runtime)?.reload();
    await runtime.refreshTools();
    return listSlashCommands(runtime);
  }

  /** One resource of one of the session's MCP servers, as the server sends it. */
  async mcpReadResource(server: string, uri: string): Promise<readonly McpResourceContent[]> {
    const { mcp, signal } = await this.target();
    if (!mcp || !mcp.resourceService.serverNames().includes(server)) throw new Error(`MCP server "${server}" is not one of this session's`);
    return mcp.resourceService.readResource(server, uri, signal);
  }

  /** Calls to a server's tools that the mode would let through unasked are asked for (`null`: as the mode says). */
  async mcpModeOverride(server: string, mode: 'default' | 'auto' | null): Promise<{ warning?: string }> {
    const { mcp } = await this.target();
    this.#mcpModes.set(server, mode);
    const known = mcp?.resourceService.serverNames().includes(server) === true;
    return mode === null || known ? {} : { warning: `no MCP server is named "${server}": the override is kept for a server of that name` };
  }
}
