/**
 * The environment a command runs with: the parent's, minus secrets. Claude Code hands its own API key to every
 * shell; toolgate removes anything that looks like a credential — by name (`*_TOKEN`, `AWS_ACCESS_KEY_ID`,
 * `DATABASE_URL`, `PGPASSWORD`, `*_WEBHOOK_URL`, `*_DSN`, `*_PRIVATE_KEY`…) or by value (a URL carrying a password)
 * — unless the settings pass it through by name. Every value removed is also registered for redaction, so it cannot
 * come back to the model through the command's output either (`cat /proc/*\/environ` outside the sandbox).
 */
import { envSecretEntries, isSecretEnvName as isSecretName, registerSecretValues, secretEnvNames } from '../../execution/redaction.js';
import { DEFAULT_SECRET_ENV_PATTERNS, type BashToolSettings } from './bash-settings.js';

export interface ChildEnv {
  readonly env: NodeJS.ProcessEnv;
  /** Names removed, sorted (never their values). */
  readonly scrubbed: readonly string[];
}

export function buildChildEnv(base: NodeJS.ProcessEnv, settings: BashToolSettings = {}): ChildEnv {
  const scrubbed = secretEnvNames(base, { patterns: settings.secretEnvPatterns ?? DEFAULT_SECRET_ENV_PATTERNS, passEnv: settings.passEnv });
  const removed = new Set(scrubbed);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !removed.has(name)) env[name] = value;
  }
  if (scrubbed.length > 0) registerSecretValues(scrubbed.flatMap((name) => envSecretEntries(name, base[name]!)));
  env.TOOLGATE = '1';
  return { env, scrubbed: scrubbed.sort() };
}

export function isSecretEnvName(name: string, patterns: readonly string[] = DEFAULT_SECRET_ENV_PATTERNS): boolean {
  return isSecretName(name, patterns);
}
