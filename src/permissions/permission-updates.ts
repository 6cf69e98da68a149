/**
 * Permission updates (a PermissionRequest hook's `updatedPermissions`, the runtime's "allow with a rule" answer):
 * checked from untrusted JSON, and applied to a permission context in memory. Writing the file-destination ones to
 * settings files is the settings layer's job (`src/settings/grants.ts`), reached through the `permissionUpdates`
 * service so the executor never imports upward.
 */
import path from 'node:path';
import type {
  PermissionBehavior,
  PermissionMode,
  PermissionRule,
  PermissionRuleSource,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  ToolPermissionContext,
} from '../tool/permission-types.js';
import { PERMISSION_MODES } from '../tool/permission-types.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { formatPermissionRule, tryParsePermissionRule, validatePermissionRule } from './permission-rule.js';
import { updatePermissionContext } from './permission-context.js';

/** Persists the updates whose destination is a settings file (implemented by the settings layer). */
export interface PermissionUpdateSink {
  persist(updates: readonly PermissionUpdate[]): Promise<{ readonly written: readonly string[]; readonly errors: readonly string[] }>;
}

declare module '../tool/tool-use-context.js' {
  interface ToolServices {
    /** Writes granted rules to settings files; absent: file-destination updates apply to this session only. */
    readonly permissionUpdates?: PermissionUpdateSink;
  }
}

const DESTINATIONS: ReadonlySet<string> = new Set(['session', 'localSettings', 'projectSettings', 'userSettings']);
const BEHAVIORS: ReadonlySet<string> = new Set(['allow', 'deny', 'ask']);

/** A valid ISO date string (`2026-12-01T00:00:00Z`), or undefined. */
export function parseExpiry(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

function ruleValueOf(raw: unknown): PermissionRuleValue | string {
  if (typeof raw === 'string') {
    const parsed = tryParsePermissionRule(raw);
    return parsed.ok ? parsed.value : parsed.error.problem;
  }
  if (raw === null || typeof raw !== 'object') return 'a rule must be {toolName, ruleContent?} or a rule string';
  const { toolName, ruleContent } = raw as Record<string, unknown>;
  if (typeof toolName !== 'string' || (ruleContent !== undefined && typeof ruleContent !== 'string')) return 'toolName must be a string (ruleContent a string when given)';
  // Through the text form, so the rule is exactly what a settings file would hold.
  const parsed = tryParsePermissionRule(formatPermissionRule({ toolName, ...(ruleContent !== undefined ? { ruleContent } : {}) }));
  return parsed.ok ? parsed.value : parsed.error.problem;
}

/** Untrusted update entries → checked updates; a malformed entry is reported and skipped, never half-applied. */
export function parsePermissionUpdates(raw: readonly unknown[]): { updates: PermissionUpdate[]; errors: string[] } {
  const updates: PermissionUpdate[] = [];
  const errors: string[] = [];
  raw.forEach((entry, i) => {
    const at = `updatedPermissions[${i}]`;
    if (entry === null || typeof entry !== 'object') return void errors.push(`${at} must be an object`);
    const e = entry as Record<string, unknown>;
    const destination = e.destination;
    if (typeof destination !== 'string' || !DESTINATIONS.has(destination)) return void errors.push(`${at}.destination must be one of ${[...DESTINATIONS].join(', ')}`);
    const dest = destination as PermissionUpdateDestination;
    switch (e.type) {
      case 'addRules':
      case 'replaceRules':
      case 'removeRules': {
        if (typeof e.behavior !== 'string' || !BEHAVIORS.has(e.behavior)) return void errors.push(`${at}.behavior must be allow, deny or ask`);
        const behavior = e.behavior as PermissionBehavior;
        if (!Array.isArray(e.rules)) return void errors.push(`${at}.rules must be an array`);
        const rules: PermissionRuleValue[] = [];
        for (const [j, r] of e.rules.entries()) {
          const v = ruleValueOf(r);
          if (typeof v === 'string') return void errors.push(`${at}.rules[${j}]: ${v}`);
          const problems = validatePermissionRule(v, behavior).errors;
          if (problems.length > 0) return void errors.push(`${at}.rules[${j}]: ${problems.join('; ')}`);
          rules.push(v);
        }
        let expiresAt: string | undefined;
        if (e.expiresAt !== undefined) {
          expiresAt = parseExpiry(e.expiresAt);
          if (expiresAt === undefined) return void errors.push(`${at}.expiresAt must be an ISO date`);
          if (behavior !== 'allow' || e.type !== 'addRules') return void errors.push(`${at}.expiresAt applies to added allow rules only`);
        }
        updates.push({ type: e.type, rules, behavior, destination: dest, ...(expiresAt !== undefined ? { expiresAt } : {}) });
        return;
      }
      case 'setMode': {
        const mode = e.mode;
        if (typeof mode !== 'string' || !(PERMISSION_MODES as readonly string[]).includes(mode) || mode === 'bubble') return void errors.push(`${at}.mode is not a permission mode`);
        updates.push({ type: 'setMode', mode: mode as PermissionMode, destination: dest });
        return;
      }
      case 'addDirectories':
      case 'removeDirectories': {
        if (!Array.isArray(e.directories) || !e.directories.every((d) => typeof d === 'string' && d.length > 0)) return void errors.push(`${at}.directories must be an array of paths`);
        updates.push({ type: e.type, directories: e.directories as string[], destination: dest });
        return;
      }
      default:
        errors.push(`${at}.type ${JSON.stringify(e.type)} is not a known update type`);
    }
  });
  return { updates, errors };
}

const SOURCE_OF: Readonly<Record<PermissionUpdateDestination, PermissionRuleSource>> = {
  session: 'session',
  localSettings: 'localSettings',
  projectSettings: 'projectSettings',
  userSettings: 'userSettings',
};

const sameRule = (a: PermissionRuleValue, b: PermissionRuleValue): boolean => formatPermissionRule(a) === formatPermissionRule(b);

/**
 * The context after these updates (a new frozen context). Rules of a file destination take effect in this session at
 * once, with that source, so traces name where they will live. `setMode` to bypassPermissions only when available.
 */
export function applyPermissionUpdates(ctx: ToolPermissionContext, updates: readonly PermissionUpdate[], files: Partial<Record<PermissionUpdateDestination, string>> = {}): ToolPermissionContext {
  let lists = { allow: [...ctx.alwaysAllowRules], deny: [...ctx.alwaysDenyRules], ask: [...ctx.alwaysAskRules] } as Record<PermissionBehavior, PermissionRule[]>;
  let mode = ctx.mode;
  const dirs = new Map(ctx.additionalWorkingDirectories);
  for (const u of updates) {
    const source = SOURCE_OF[u.destination];
    switch (u.type) {
      case 'addRules':
      case 'replaceRules':
      case 'removeRules': {
        let list = lists[u.behavior];
        if (u.type === 'replaceRules') list = list.filter((r) => r.source !== source);
        if (u.type === 'removeRules') list = list.filter((r) => r.source !== source || !u.rules.some((v) => sameRule(v, r.ruleValue)));
        else {
          for (const value of u.rules) {
            list = list.filter((r) => !(r.source === source && sameRule(r.ruleValue, value)));
            const file = files[u.destination];
            list.push({
              source,
              ruleBehavior: u.behavior,
              ruleValue: value,
              ...(file !== undefined ? { sourceFile: file } : {}),
              ...(u.expiresAt !== undefined ? { expiresAt: u.expiresAt } : {}),
            });
          }
        }
        lists = { ...lists, [u.behavior]: list };
        break;
      }
      case 'setMode':
        if (u.mode !== 'bypassPermissions' || ctx.isBypassPermissionsModeAvailable) mode = u.mode;
        break;
      case 'addDirectories':
        for (const d of u.directories) {
          const abs = path.resolve(ctx.cwd, d);
          dirs.set(abs, { path: abs, source });
        }
        break;
      case 'removeDirectories':
        for (const d of u.directories) dirs.delete(path.resolve(ctx.cwd, d));
        break;
    }
  }
  return updatePermissionContext(ctx, {
    mode,
    alwaysAllowRules: lists.allow,
    alwaysDenyRules: lists.deny,
    alwaysAskRules: lists.ask,
    additionalWorkingDirectories: dirs,
  });
}

/** What the one applier reads and writes: the session's app state (its permission context). */
export type PermissionStateAccess = Pick<ToolUseContext, 'setAppState'>;

export interface PermissionUpdateOptions {
  /** What could not be written to its file is not applied either. */
  readonly onlySaved?: boolean;
  /** `false`: applied to the session only, nothing written. */
  readonly save?: boolean;
}

/** What `savePermissionUpdates` did: the updates now in effect, the files written, and what went wrong. */
export interface SavedPermissionUpdates {
  readonly applied: readonly PermissionUpdate[];
  readonly written: readonly string[];
  readonly errors: readonly string[];
}

/**
 * The one applier of permission updates (a person's answer, a program's `updatedPermissions`, a PermissionRequest
 * hook's, `/permissions add`): each update with a file destination is written through `sink` first, so the rule takes
 * effect in this session with the file it lives in as its source; then every update is applied to the session's
 * permission context at once. An update whose file could not be written still applies to this session, unless
 * `onlySaved` (a person asked for a rule in a file: not written, not added); without a sink it applies to this session
 * only, and says so. `save: false` applies them to the session alone (the caller has edited the files itself).
 */
export async function savePermissionUpdates(
  state: PermissionStateAccess,
  sink: PermissionUpdateSink | undefined,
  updates: readonly PermissionUpdate[],
  options: PermissionUpdateOptions = {},
): Promise<SavedPermissionUpdates> {
  const applied: PermissionUpdate[] = [];
  const written: string[] = [];
  const errors: string[] = [];
  const files: Partial<Record<PermissionUpdateDestination, string>> = {};
  for (const u of updates) {
    if (u.destination === 'session' || options.save === false) {
      applied.push(u);
      continue;
    }
    let saved: { readonly written: readonly string[]; readonly errors: readonly string[] } = { written: [], errors: ['rules for settings files apply to this session only: the session reads no settings files'] };
    if (sink) {
      try {
        saved = await sink.persist([u]);
      } catch (error) {
        saved = { written: [], errors: [`could not save: ${error instanceof Error ? error.message : String(error)}`] };
      }
    }
    errors.push(...saved.errors);
    const file = saved.written[0];
    if (file !== undefined) {
      files[u.destination] = file;
      written.push(file);
    }
    if (file !== undefined || !options.onlySaved) applied.push(u);
  }
  if (applied.length > 0) {
    state.setAppState((prev) => ({ ...prev, toolPermissionContext: applyPermissionUpdates(prev.toolPermissionContext, applied, files) }));
  }
  return { applied, written, errors };
}
