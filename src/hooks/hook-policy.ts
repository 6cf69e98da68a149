/**
 * Which configured hooks may run: Claude Code's `disableAllHooks`, `allowManagedHooksOnly`, `allowedHttpHookUrls` and
 * `httpHookAllowedEnvVars`, applied in the one place hooks are assembled (`parseHooksSettings`), to every source —
 * settings files and plugins alike. The settings layer decides the policy from the levels that set these keys
 * (settings/hook-settings.ts: managed wins, a repository's levels only narrow); this module only applies it.
 */
import { normalizedUrl, urlMatchesPattern } from '../permissions/url-allowlist.js';
import type { HttpHookHandler } from './types.js';

export { urlMatchesPattern };

/** One level's list (`allowedHttpHookUrls` or `httpHookAllowedEnvVars`) and the file(s) it came from. */
export interface HookAllowlist {
  readonly file: string;
  readonly entries: readonly string[];
}

export interface HookPolicy {
  /**
   * Sources whose hooks do not run: `all`; `non-managed` (every source but `policySettings`, plugins included); or
   * `project` (the levels a repository can commit: `projectSettings`, `localSettings`). `why` names the setting.
   */
  readonly off?: { readonly scope: 'all' | 'non-managed' | 'project'; readonly why: string };
  /** An http hook runs only if every list has a pattern matching its URL (`*`: any characters); `[]` allows none. */
  readonly httpUrls?: readonly HookAllowlist[];
  /** An http hook's `allowedEnvVars` keep only the names every list has. */
  readonly httpEnvVars?: readonly HookAllowlist[];
}

export const MANAGED_HOOK_SOURCE = 'policySettings';
const PROJECT_HOOK_SOURCES = new Set(['projectSettings', 'localSettings']);

/** Whether the policy turns off the hooks of `source` (a settings source, or `plugin:<name>`). */
export function hookSourceIsOff(policy: HookPolicy | undefined, source: string): boolean {
  const scope = policy?.off?.scope;
  if (scope === 'all') return true;
  if (scope === 'non-managed') return source !== MANAGED_HOOK_SOURCE;
  if (scope === 'project') return PROJECT_HOOK_SOURCES.has(source);
  return false;
}

/**
 * The http handler as the policy lets it run, or why it may not. The URL is matched as the runner will send it
 * (normalised as a client sends it: permissions/url-allowlist.ts); a URL carrying a user name or password is refused under a list, since
 * `http://allowed.host@elsewhere/` would otherwise pass a pattern written as `http://allowed.host*`.
 */
export function applyHttpPolicy(handler: HttpHookHandler, policy: HookPolicy | undefined): { handler: HttpHookHandler } | { refused: string } {
  let out = handler;
  if (policy?.httpUrls !== undefined && policy.httpUrls.length > 0) {
    const href = normalizedUrl(handler.url);
    if (href === undefined) return { refused: `its URL ${JSON.stringify(handler.url)} cannot be read` };
    if (href.hasCredentials) return { refused: `its URL carries a user name or password, which allowedHttpHookUrls does not allow` };
    const refusing = policy.httpUrls.find((list) => !list.entries.some((p) => urlMatchesPattern(href.href, p)));
    if (refusing !== undefined) return { refused: `${href.href} is not in allowedHttpHookUrls (${refusing.file})` };
    out = { ...out, url: href.href };
  }
  if (policy?.httpEnvVars !== undefined && out.allowedEnvVars !== undefined) {
    const kept = out.allowedEnvVars.filter((name) => policy.httpEnvVars!.every((list) => list.entries.includes(name)));
    out = { ...out, allowedEnvVars: kept };
  }
  return { handler: out };
}
