/**
 * Building permission contexts. Every context this module returns is deeply frozen at run time (not only typed
 * read-only): a change is a new context, so a decision in flight can never see rules change under it.
 */
import path from 'node:path';
import { deepFreeze } from '../tool/deep-immutable.js';
import type {
  AdditionalWorkingDirectory,
  PermissionBehavior,
  PermissionMode,
  PermissionRule,
  PermissionRuleSource,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import { parsePermissionRule } from './permission-rule.js';

/** What `createPermissionContext` builds a context from: directories, mode and rules. */
export interface PermissionContextInit {
  readonly cwd: string;
  readonly projectDir?: string;
  readonly homeDir?: string;
  readonly mode?: PermissionMode;
  readonly prePlanMode?: PermissionMode;
  readonly additionalDirectories?: readonly (string | AdditionalWorkingDirectory)[];
  readonly rules?: readonly PermissionRule[];
  readonly isBypassPermissionsModeAvailable?: boolean;
  readonly shouldAvoidPermissionPrompts?: boolean;
}

/** A frozen context. Relative directories resolve against `cwd`. */
export function createPermissionContext(init: PermissionContextInit): ToolPermissionContext {
  const cwd = path.resolve(init.cwd);
  const dirs = new Map<string, AdditionalWorkingDirectory>();
  for (const d of init.additionalDirectories ?? []) {
    const entry = typeof d === 'string' ? { path: path.resolve(cwd, d), source: 'session' as const } : { ...d, path: path.resolve(cwd, d.path) };
    dirs.set(entry.path, entry);
  }
  const rules = init.rules ?? [];
  const ctx: ToolPermissionContext = {
    mode: init.mode ?? 'default',
    ...(init.prePlanMode !== undefined ? { prePlanMode: init.prePlanMode } : {}),
    cwd,
    projectDir: path.resolve(cwd, init.projectDir ?? cwd),
    ...(init.homeDir !== undefined ? { homeDir: path.resolve(init.homeDir) } : {}),
    additionalWorkingDirectories: dirs,
    alwaysAllowRules: rules.filter((r) => r.ruleBehavior === 'allow'),
    alwaysDenyRules: rules.filter((r) => r.ruleBehavior === 'deny'),
    alwaysAskRules: rules.filter((r) => r.ruleBehavior === 'ask'),
    isBypassPermissionsModeAvailable: init.isBypassPermissionsModeAvailable ?? init.mode === 'bypassPermissions',
    ...(init.shouldAvoidPermissionPrompts !== undefined ? { shouldAvoidPermissionPrompts: init.shouldAvoidPermissionPrompts } : {}),
  };
  return deepFreeze(ctx) as ToolPermissionContext;
}

/** Rules from their text form. Throws PermissionRuleParseError on the first malformed one. */
export function parseRules(
  texts: readonly string[],
  behavior: PermissionBehavior,
  source: PermissionRuleSource,
  extra: { sourceFile?: string; root?: string } = {},
): PermissionRule[] {
  return texts.map((text) => ({
    source,
    ruleBehavior: behavior,
    ruleValue: parsePermissionRule(text),
    ...(extra.sourceFile !== undefined ? { sourceFile: extra.sourceFile } : {}),
    ...(extra.root !== undefined ? { root: extra.root } : {}),
  }));
}

/** A new frozen context with the given changes (rules lists replaced when given). */
export function updatePermissionContext(
  ctx: ToolPermissionContext,
  changes: Partial<{ -readonly [K in keyof ToolPermissionContext]: ToolPermissionContext[K] }>,
): ToolPermissionContext {
  return deepFreeze({ ...ctx, ...changes }) as ToolPermissionContext;
}

/** A new context with extra rules (e.g. a session "always allow" answer). */
export function addRules(ctx: ToolPermissionContext, rules: readonly PermissionRule[]): ToolPermissionContext {
  return updatePermissionContext(ctx, {
    alwaysAllowRules: [...ctx.alwaysAllowRules, ...rules.filter((r) => r.ruleBehavior === 'allow')],
    alwaysDenyRules: [...ctx.alwaysDenyRules, ...rules.filter((r) => r.ruleBehavior === 'deny')],
    alwaysAskRules: [...ctx.alwaysAskRules, ...rules.filter((r) => r.ruleBehavior === 'ask')],
  });
}

/** Plan mode on: remembers the mode to return to. */
export function enterPlanMode(ctx: ToolPermissionContext): ToolPermissionContext {
  if (ctx.mode === 'plan') return ctx;
  return updatePermissionContext(ctx, { mode: 'plan', prePlanMode: ctx.mode });
}

/** Plan mode off: back to the mode before it (default when unknown). */
export function exitPlanMode(ctx: ToolPermissionContext): ToolPermissionContext {
  if (ctx.mode !== 'plan') return ctx;
  const { prePlanMode, ...rest } = ctx;
  return deepFreeze({ ...rest, mode: prePlanMode ?? 'default' }) as ToolPermissionContext;
}
