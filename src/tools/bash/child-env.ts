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
  const matchers = compiled(settings.secretEnvPatterns ?? DEFAULT_SECRET_ENV_PATTERNS);
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
  return compiled(patterns).some((re) => re.test(name));
}

// Compiled once per pattern list (settings objects are long-lived), not once per call.
const compiledLists = new WeakMap<readonly string[], RegExp[]>();

function compiled(patterns: readonly string[]): RegExp[] {
  let list = compiledLists.get(patterns);
  if (list === undefined) {
    list = patterns.map(globToRegExp);
    compiledLists.set(patterns, list);
  }
  return list;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}
