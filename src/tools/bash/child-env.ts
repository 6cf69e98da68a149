/**
 * The environment a command runs with: the parent's, minus secrets. Claude Code hands its own API key to every
 * shell; toolgate removes anything that looks like a credential unless the settings pass it through by name.
 */
import { DEFAULT_SECRET_ENV_PATTERNS, type BashToolSettings } from './bash-settings.js';

export interface ChildEnv {
  readonly env: NodeJS.ProcessEnv;
  /** Names removed, sorted (never their values). */
  readonly scrubbed: readonly string[];
}

export function buildChildEnv(base: NodeJS.ProcessEnv, settings: BashToolSettings = {}): ChildEnv {
  const matchers = (settings.secretEnvPatterns ?? DEFAULT_SECRET_ENV_PATTERNS).map(globToRegExp);
  const pass = new Set((settings.passEnv ?? []).map((n) => n.toUpperCase()));
  const env: NodeJS.ProcessEnv = {};
  const scrubbed: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (!pass.has(name.toUpperCase()) && matchers.some((re) => re.test(name))) {
      scrubbed.push(name);
      continue;
    }
    env[name] = value;
  }
  env.TOOLGATE = '1';
  return { env, scrubbed: scrubbed.sort() };
}

export function isSecretEnvName(name: string, patterns: readonly string[] = DEFAULT_SECRET_ENV_PATTERNS): boolean {
  return patterns.some((p) => globToRegExp(p).test(name));
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}
