/**
 * Auto mode's configuration: which classifier a runtime uses and with what limits, from `createToolRuntime`'s
 * `classifier` option and the settings files.
 *
 * Settings: toolgate's `toolgate.autoMode` — `fastModel`, `thinkingModel`, `thinkingBudgetTokens`, `timeoutMs`,
 * `maxConsecutiveDenials`, `maxTotalDenials` — and Claude Code's `autoMode` prose (`environment`, `allow`,
 * `soft_deny`, `hard_deny`), which the classifier reads beside its own guidance. Like Claude Code, a repository's
 * committed settings (`.claude/settings.json`, `.toolgate/settings.json`) may not configure the classifier — a cloned
 * project could otherwise pick a weaker model or trust its own domains —: those levels are ignored with a warning;
 * user, local, managed and `--settings` levels count. Scalars come from the highest level that sets them, lists merge.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { DEFAULT_DENIAL_LIMITS, type AutoModeOptions, type DenialLimits, type PermissionClassifier } from '../permissions/auto-mode.js';
import { createSpeculativeClassifier, type SpeculativeClassifier } from '../permissions/speculative-classifier.js';
import type { LoadedSettings } from '../settings/load-settings.js';
import type { AutoClassifierOptions } from './auto-classifier.js';
import type { AutoModeRules } from './classifier-prompt.js';

export interface AutoModeSettings {
  readonly fastModel?: string;
  readonly thinkingModel?: string;
  readonly thinkingBudgetTokens?: number;
  readonly timeoutMs?: number;
  readonly denialLimits: DenialLimits;
  readonly rules: AutoModeRules;
}

/** What the runtime wires: the engine's auto-mode options (with the early classifications of shell calls). */
export interface AutoModeWiring {
  readonly options: AutoModeOptions;
  readonly speculation?: SpeculativeClassifier;
  /** A classifier is configured and no settings file disables auto mode. */
  readonly available: boolean;
}

const LISTS = ['environment', 'allow', 'soft_deny', 'hard_deny'] as const;

export function readAutoModeSettings(loaded: LoadedSettings, warnings: string[], errors: string[]): AutoModeSettings {
  const scalars: Record<string, unknown> = {};
  const rules: Record<(typeof LISTS)[number], string[]> = { environment: [], allow: [], soft_deny: [], hard_deny: [] };
  for (const level of loaded.autoModeBySource) {
    if (level.source === 'projectSettings') {
      warnings.push(`${level.file}: auto mode settings ("autoMode", "toolgate.autoMode") are ignored in a project's shared settings; set them in user or local settings`);
      continue;
    }
    const own = objectOrError(level.toolgateAutoMode, `${level.file}: "toolgate.autoMode"`, errors);
    for (const [key, value] of Object.entries(own)) if (!(key in scalars)) scalars[key] = { value, file: level.file };
    const cc = objectOrError(level.autoMode, `${level.file}: "autoMode"`, errors);
    for (const list of LISTS) {
      const value = cc[list];
      if (value === undefined) continue;
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) errors.push(`${level.file}: "autoMode.${list}" must be a list of strings`);
      else rules[list].push(...(value as string[]));
    }
  }
  const pick = (key: string, ok: (v: unknown) => boolean, what: string): unknown => {
    const entry = scalars[key] as { value: unknown; file: string } | undefined;
    if (entry === undefined) return undefined;
    if (ok(entry.value)) return entry.value;
    errors.push(`${entry.file}: "toolgate.autoMode.${key}" must be ${what}`);
    return undefined;
  };
  const model = (v: unknown) => typeof v === 'string' && v.trim() !== '';
  const positive = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
  for (const key of Object.keys(scalars)) {
    if (!['fastModel', 'thinkingModel', 'thinkingBudgetTokens', 'timeoutMs', 'maxConsecutiveDenials', 'maxTotalDenials'].includes(key)) {
      warnings.push(`unknown setting "toolgate.autoMode.${key}" (ignored)`);
    }
  }
  const fastModel = pick('fastModel', model, 'a model name') as string | undefined;
  const thinkingModel = pick('thinkingModel', model, 'a model name') as string | undefined;
  const thinkingBudgetTokens = pick('thinkingBudgetTokens', (v) => positive(v) && (v as number) >= 1024, 'a whole number of at least 1024') as number | undefined;
  const timeoutMs = pick('timeoutMs', positive, 'a positive whole number of milliseconds') as number | undefined;
  const consecutive = pick('maxConsecutiveDenials', positive, 'a positive whole number') as number | undefined;
  const total = pick('maxTotalDenials', positive, 'a positive whole number') as number | undefined;
  return {
    ...(fastModel !== undefined ? { fastModel } : {}),
    ...(thinkingModel !== undefined ? { thinkingModel } : {}),
    ...(thinkingBudgetTokens !== undefined ? { thinkingBudgetTokens } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    denialLimits: { consecutive: consecutive ?? DEFAULT_DENIAL_LIMITS.consecutive, total: total ?? DEFAULT_DENIAL_LIMITS.total },
    rules,
  };
}

/**
 * The classifier: the caller's function; the built-in one configured by an object (its fields beat the settings');
 * by default the built-in one when the runtime has a client; none with `false` or without a client.
 */
export function wireAutoMode(
  option: PermissionClassifier | AutoClassifierOptions | false | undefined,
  client: Anthropic | undefined,
  settings: AutoModeSettings,
  autoModeDisabled: boolean,
): AutoModeWiring {
  let classifier: PermissionClassifier | undefined;
  if (typeof option === 'function') classifier = option;
  else if (option !== false) {
    const configured = option ?? {};
    const apiClient = configured.client ?? client;
    if (apiClient !== undefined) {
      const classifierOptions = {
        ...(settings.fastModel !== undefined ? { fastModel: settings.fastModel } : {}),
        ...(settings.thinkingModel !== undefined ? { thinkingModel: settings.thinkingModel } : {}),
        ...(settings.thinkingBudgetTokens !== undefined ? { thinkingBudgetTokens: settings.thinkingBudgetTokens } : {}),
        rules: settings.rules,
        ...configured,
        client: apiClient,
      };
      // Loaded on the first classification: the classifier's module brings the Anthropic SDK's error classes, which a
      // runtime that never classifies (`toolgate exec`, `check`) should not load at start-up.
      let made: Promise<PermissionClassifier> | undefined;
      classifier = async (request) => {
        made ??= import('./auto-classifier.js').then((m) => m.createAutoModeClassifier(classifierOptions));
        return (await made)(request);
      };
    }
  }
  const base: AutoModeOptions = {
    ...(classifier !== undefined ? { classifier } : {}),
    denialLimits: settings.denialLimits,
    ...(settings.timeoutMs !== undefined ? { classifierTimeoutMs: settings.timeoutMs } : {}),
  };
  const speculation = classifier !== undefined ? createSpeculativeClassifier(base) : undefined;
  return { options: { ...base, ...(speculation ? { speculation } : {}) }, ...(speculation ? { speculation } : {}), available: classifier !== undefined && !autoModeDisabled };
}

function objectOrError(value: unknown, where: string, errors: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    errors.push(`${where} must be an object`);
    return {};
  }
  return value as Record<string, unknown>;
}
