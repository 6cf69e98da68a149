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
    const upper = name.toUpperCase();
    if (!pass.has(upper) && matchers.some((matches) => matches(upper))) {
      scrubbed.push(name);
      continue;
    }
    env[name] = value;
  }
  env.TOOLGATE = '1';
  return { env, scrubbed: scrubbed.sort() };
}

export function isSecretEnvName(name: string, patterns: readonly string[] = DEFAULT_SECRET_ENV_PATTERNS): boolean {
  const upper = name.toUpperCase();
  return compiled(patterns).some((matches) => matches(upper));
}

type NameMatcher = (upperName: string) => boolean;

// Compiled once per pattern list (settings objects are long-lived), not once per call.
const compiledLists = new WeakMap<readonly string[], NameMatcher[]>();

function compiled(patterns: readonly string[]): NameMatcher[] {
  let list = compiledLists.get(patterns);
  if (list === undefined) {
    list = patterns.map(compileGlob);
    compiledLists.set(patterns, list);
  }
  return list;
}

/** `*_TOKEN` → a suffix test, `AWS_*` → a prefix test, no `*` → equality; anything else a regular expression. */
function compileGlob(pattern: string): NameMatcher {
  const p = pattern.toUpperCase();
  const stars = p.split('*').length - 1;
  if (stars === 0) return (name) => name === p;
  if (stars === 1 && p.startsWith('*')) {
    const suffix = p.slice(1);
    return (name) => name.endsWith(suffix);
  }
  if (stars === 1 && p.endsWith('*')) {
    const prefix = p.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  const body = p
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${body}$`);
  return (name) => re.test(name);
}
