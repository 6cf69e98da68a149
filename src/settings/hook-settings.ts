/**
 * The hook settings Claude Code honours — `disableAllHooks`, `allowManagedHooksOnly`, `allowedHttpHookUrls`,
 * `httpHookAllowedEnvVars` — read from each file and turned into one `HookPolicy` (applied in hooks/hook-policy.ts).
 *
 * Precedence (docs/security.md, "Hook settings"): managed settings win and nothing below re-enables what they turn
 * off. `disableAllHooks` in managed settings turns off every hook; `allowManagedHooksOnly` there leaves only the
 * managed ones (plugins' too are off). `disableAllHooks` at the person's levels (user, `--settings`, the SDK's object)
 * leaves only managed hooks, as in Claude Code. Unlike Claude Code, a repository's levels (`.claude/settings.json`,
 * `.claude/settings.local.json`) turn off only their own hooks: a cloned repository must not switch off the person's
 * guard hooks. The two lists narrow by level: managed, the person's levels and the repository's levels each form one
 * list (merged within the level group) and a hook must pass every group that sets one — so a repository's
 * `allowedHttpHookUrls: ["*"]` cannot widen the person's list (in Claude Code the lists merge into one).
 */
import type { HookAllowlist, HookPolicy } from '../hooks/hook-policy.js';
import type { PermissionRuleSource } from '../tool/permission-types.js';
import type { SettingsError } from './read-settings-file.js';

export interface HookSettingsKeys {
  readonly disableAllHooks?: boolean;
  readonly allowManagedHooksOnly?: boolean;
  readonly allowedHttpHookUrls?: readonly string[];
  readonly httpHookAllowedEnvVars?: readonly string[];
}

/** The four keys of one settings file; a wrong type is an error (a policy that cannot be read is not "no policy"). */
export function readHookSettingsKeys(obj: Record<string, unknown>, file: string, errors: SettingsError[]): HookSettingsKeys | undefined {
  const out: { -readonly [K in keyof HookSettingsKeys]: HookSettingsKeys[K] } = {};
  for (const key of ['disableAllHooks', 'allowManagedHooksOnly'] as const) {
    if (obj[key] === undefined) continue;
    if (typeof obj[key] !== 'boolean') errors.push({ file, key, message: `"${key}" must be true or false` });
    else out[key] = obj[key];
  }
  for (const key of ['allowedHttpHookUrls', 'httpHookAllowedEnvVars'] as const) {
    const v = obj[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) errors.push({ file, key, message: `"${key}" must be a list of strings` });
    else out[key] = v as string[];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface Level {
  readonly source: PermissionRuleSource;
  readonly file: string;
  readonly hookSettings?: HookSettingsKeys;
}

const REPOSITORY_LEVELS: ReadonlySet<PermissionRuleSource> = new Set(['projectSettings', 'localSettings']);
type Group = 'managed' | 'person' | 'repository';
const groupOf = (source: PermissionRuleSource): Group => (source === 'policySettings' ? 'managed' : REPOSITORY_LEVELS.has(source) ? 'repository' : 'person');

/** The policy the levels (highest precedence first) set; notes about keys that do nothing go to `warnings`. */
export function hookPolicyOf(levels: readonly Level[], warnings: string[]): HookPolicy {
  const set = levels.filter((l) => l.hookSettings !== undefined);
  const managed = set.find((l) => l.source === 'policySettings');
  for (const l of set) {
    if (l.hookSettings!.allowManagedHooksOnly === true && l.source !== 'policySettings') warnings.push(`${l.file}: "allowManagedHooksOnly" is only honoured in managed settings (ignored)`);
  }
  const disabledBy = (group: Group) => set.find((l) => groupOf(l.source) === group && l.hookSettings!.disableAllHooks === true);
  let off: HookPolicy['off'];
  if (managed?.hookSettings?.disableAllHooks === true) off = { scope: 'all', why: `disableAllHooks in ${managed.file}` };
  else if (managed?.hookSettings?.allowManagedHooksOnly === true) off = { scope: 'non-managed', why: `allowManagedHooksOnly in ${managed.file}` };
  else if (disabledBy('person') !== undefined) off = { scope: 'non-managed', why: `disableAllHooks in ${disabledBy('person')!.file}` };
  else if (disabledBy('repository') !== undefined) {
    const file = disabledBy('repository')!.file;
    off = { scope: 'project', why: `disableAllHooks in ${file}` };
    warnings.push(`${file}: "disableAllHooks" in a repository's settings turns off the repository's own hooks only; the user's and plugins' hooks still run`);
  }
  const httpUrls = lists(set, 'allowedHttpHookUrls');
  const httpEnvVars = lists(set, 'httpHookAllowedEnvVars');
  return { ...(off !== undefined ? { off } : {}), ...(httpUrls.length > 0 ? { httpUrls } : {}), ...(httpEnvVars.length > 0 ? { httpEnvVars } : {}) };
}

/** One list per level group that sets the key: the union of that group's files. */
function lists(set: readonly Level[], key: 'allowedHttpHookUrls' | 'httpHookAllowedEnvVars'): HookAllowlist[] {
  const out: HookAllowlist[] = [];
  for (const group of ['managed', 'person', 'repository'] as const) {
    const levels = set.filter((l) => groupOf(l.source) === group && l.hookSettings![key] !== undefined);
    if (levels.length === 0) continue;
    out.push({ file: levels.map((l) => l.file).join(', '), entries: [...new Set(levels.flatMap((l) => l.hookSettings![key]!))] });
  }
  return out;
}
