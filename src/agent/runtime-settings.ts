/**
 * From settings files (and the options of `createToolRuntime`) to what the pieces read: the permission context, the
 * hooks configuration, and the `ToolSettings` every tool sees — `env`, `sandbox`, `bashOutputMaxChars` and toolgate's
 * own `toolgate` key (tool settings by name, plus `conversationBudgetChars`). Nothing a settings file says is dropped
 * on the way: a key the tools do not know is passed through, a key of the wrong type is an error (fail closed).
 */
import path from 'node:path';
import { parseHooksSettings } from '../hooks/parse-hooks-settings.js';
import type { HooksConfig } from '../hooks/types.js';
import { loadSettings, type LoadedSettings } from '../settings/load-settings.js';
import type { SandboxSettings } from '../tools/bash/bash-settings.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';
import type { ToolSettings } from '../tool/tool-use-context.js';
import type { ToolRuntimeOptions } from './types.js';
import { readAutoModeSettings, type AutoModeSettings } from './auto-mode-settings.js';
import { inlineJsonOrPath } from '../tool/read-config-file.js';

export interface RuntimeSettings {
  readonly permissionContext: ToolPermissionContext;
  readonly hooks: HooksConfig;
  readonly toolSettings: ToolSettings;
  readonly env: Readonly<Record<string, string>>;
  /** `toolgate.conversationBudgetChars`, when set. */
  readonly conversationBudgetChars?: number;
  /** Auto mode's classifier settings (`toolgate.autoMode`, Claude Code's `autoMode`). */
  readonly autoMode: AutoModeSettings;
  readonly loaded: LoadedSettings;
  readonly warnings: readonly string[];
  /** Anything that could not be read: the runtime refuses to start (a lost deny rule would allow too much). */
  readonly errors: readonly string[];
}

/** A settings file could not be read or is invalid: `createToolRuntime` refuses to start (`problems` says what). */
export class SettingsLoadError extends Error {
  override readonly name = 'SettingsLoadError';
  constructor(readonly problems: readonly string[]) {
    super(`settings could not be loaded, nothing was run:\n  ${problems.join('\n  ')}`);
  }
}

/** Reads and checks every settings source the options name. Does not throw: the caller decides what errors mean. */
export function loadRuntimeSettings(options: ToolRuntimeOptions, cwd: string): RuntimeSettings {
  const s = options.settings ?? {};
  const flagSettingsFiles = [
    ...(s.files ?? []).map((f) => inlineJsonOrPath(f, cwd)),
    // The object is the highest `--settings` level: it comes last.
    ...(s.object !== undefined ? [JSON.stringify(s.object)] : []),
  ];
  const loaded = loadSettings({
    cwd,
    homeDir: s.homeDir,
    ...(s.managedSettingsPath !== undefined ? { managedSettingsPath: s.managedSettingsPath } : {}),
    flagSettingsFiles,
    mode: options.mode,
    ...(options.allowDangerouslySkipPermissions === true ? { allowBypassPermissions: true } : {}),
    cliRules: options.rules,
    sources: s.sources,
  });
  // Plugins' hooks come after every settings file's, through the same parser and runner (none replaces another).
  const pluginHooks = (s.plugins ?? []).flatMap((p) => p.hooks.map((h) => ({ source: `plugin:${p.name}`, file: h.file, hooks: h.hooks, env: { CLAUDE_PLUGIN_ROOT: p.root } })));
  // The hook settings (managed first) decide which of them run, plugins' included: here, the one place they meet.
  const hooks = parseHooksSettings([...loaded.hooksBySource.map((h) => ({ source: h.source, file: h.file, hooks: h.hooks })), ...pluginHooks], loaded.hookPolicy);
  const errors = [...loaded.errors.map((e) => `${e.file}: ${e.message}`), ...hooks.errors];
  const warnings = [...loaded.warnings, ...hooks.warnings];

  let permissionContext = loaded.permissionContext;
  if ((options.additionalDirectories ?? []).length > 0) {
    const dirs = new Map(permissionContext.additionalWorkingDirectories);
    for (const d of options.additionalDirectories ?? []) {
      const abs = path.resolve(cwd, d);
      dirs.set(abs, { path: abs, source: 'session' });
    }
    permissionContext = Object.freeze({ ...permissionContext, additionalWorkingDirectories: dirs }) as ToolPermissionContext;
  }

  const { settings: fromKey, budget } = toolgateKey(loaded.toolgate, errors);
  const autoMode = readAutoModeSettings(loaded, warnings, errors);
  const sandbox = sandboxSettings(loaded.sandbox, errors);
  const toolSettings: ToolSettings = {
    ...fromKey,
    ...(sandbox !== undefined ? { sandbox } : {}),
    ...(loaded.bashOutputMaxChars !== undefined ? { bashOutputMaxChars: loaded.bashOutputMaxChars } : {}),
    ...(Object.keys(loaded.env).length > 0 ? { env: loaded.env } : {}),
  };
  return {
    permissionContext,
    hooks: hooks.config,
    toolSettings,
    env: loaded.env,
    ...(budget !== undefined ? { conversationBudgetChars: budget } : {}),
    autoMode,
    loaded,
    warnings,
    errors,
  };
}

/** `toolgate: { bash: {…}, maxResultSizeChars: {…}, conversationBudgetChars, … }`: tool settings by name. */
function toolgateKey(raw: Readonly<Record<string, unknown>>, errors: string[]): { settings: Record<string, unknown>; budget?: number } {
  // `autoMode` configures the classifier (auto-mode-settings.ts, by settings level), not a tool.
  const { conversationBudgetChars, autoMode: _autoMode, ...rest } = raw;
  const settings: Record<string, unknown> = { ...rest };
  let budget: number | undefined;
  if (conversationBudgetChars !== undefined) {
    if (typeof conversationBudgetChars === 'number' && Number.isFinite(conversationBudgetChars) && conversationBudgetChars > 0) {
      budget = conversationBudgetChars;
    } else errors.push('settings: "toolgate.conversationBudgetChars" must be a positive number');
  }
  const limits = settings.maxResultSizeChars;
  if (limits !== undefined) {
    const ok =
      limits !== null &&
      typeof limits === 'object' &&
      !Array.isArray(limits) &&
      Object.values(limits).every((v) => typeof v === 'number' && v > 0);
    if (!ok) {
      errors.push('settings: "toolgate.maxResultSizeChars" must map tool names to positive numbers');
      delete settings.maxResultSizeChars;
    }
  }
  if (settings.bash !== undefined && (settings.bash === null || typeof settings.bash !== 'object' || Array.isArray(settings.bash))) {
    errors.push('settings: "toolgate.bash" must be an object');
    delete settings.bash;
  }
  return { settings, ...(budget !== undefined ? { budget } : {}) };
}

/**
 * Claude Code's `sandbox` key, in the subset toolgate implements. `enabled` of the wrong type is an error rather than
 * "off": someone meant to sandbox. Claude Code's `network.allowAll` is read as toolgate's `allowNetwork`.
 */
export function sandboxSettings(raw: unknown, errors: string[]): SandboxSettings | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push('settings: "sandbox" must be an object');
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  const out: { -readonly [K in keyof SandboxSettings]: SandboxSettings[K] } = {};
  for (const key of ['enabled', 'allowNetwork', 'failIfUnavailable', 'allowUnsandboxedCommands'] as const) {
    if (r[key] === undefined) continue;
    if (typeof r[key] !== 'boolean') errors.push(`settings: "sandbox.${key}" must be true or false`);
    else out[key] = r[key];
  }
  const network = r.network as Record<string, unknown> | undefined;
  if (out.allowNetwork === undefined && network && typeof network === 'object' && network.allowAll === true) out.allowNetwork = true;
  const fs = r.filesystem as Record<string, unknown> | undefined;
  if (fs !== undefined) {
    const allowWrite = fs && typeof fs === 'object' ? fs.allowWrite : undefined;
    if (allowWrite !== undefined) {
      if (!Array.isArray(allowWrite) || !allowWrite.every((p) => typeof p === 'string' && path.isAbsolute(p))) {
        errors.push('settings: "sandbox.filesystem.allowWrite" must be a list of absolute paths');
      } else out.filesystem = { allowWrite };
    }
  }
  return out;
}
