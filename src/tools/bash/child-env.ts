/**
 * The environment a command runs with: the parent's, minus secrets. Claude Code hands its own API key to every
 * shell; toolgate removes anything that looks like a credential — by name (`*_TOKEN`, `AWS_ACCESS_KEY_ID`,
 * `DATABASE_URL`, `PGPASSWORD`, `*_WEBHOOK_URL`, `*_DSN`, `*_PRIVATE_KEY`…) or by value (a URL carrying a password)
 * — unless the settings pass it through by name. Every value removed is also registered for redaction, so it cannot
 * come back to the model through the command's output either (`cat /proc/*\/environ` outside the sandbox).
 */
import { envSecretEntries, isSecretEnvName as isSecretName, registerSecretValues, secretEnvTest, type SecretEntry } from '../../execution/redaction.js';
import { DEFAULT_SECRET_ENV_PATTERNS, type BashToolSettings } from './bash-settings.js';

export interface ChildEnv {
  readonly env: NodeJS.ProcessEnv;
  /** Names removed, sorted (never their values). */
  readonly scrubbed: readonly string[];
}

/**
 * Reads `base` once, when the command is about to run: every name and value through one pass (`process.env` answers
 * each read through Node's interceptor, ~1 µs a variable), sorted into the child's copy or the scrubbed list from
 * that same read — so what is removed and what is registered for redaction are the values the command would have
 * seen. Not a snapshot from the start of the run: a variable set in `process.env` between then and the command (by a
 * hook, a permission callback, an earlier tool of the same response) must reach the command, as it does here.
 */
export function buildChildEnv(base: NodeJS.ProcessEnv, settings: BashToolSettings = {}): ChildEnv {
  const isSecret = secretEnvTest({ patterns: settings.secretEnvPatterns ?? DEFAULT_SECRET_ENV_PATTERNS, passEnv: settings.passEnv });
  const env: NodeJS.ProcessEnv = {};
  const scrubbed: string[] = [];
  const secrets: SecretEntry[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isSecret(name, value)) {
      scrubbed.push(name);
      secrets.push(...envSecretEntries(name, value));
    } else env[name] = value;
  }
  if (secrets.length > 0) registerSecretValues(secrets);
  env.TOOLGATE = '1';
  return { env, scrubbed: scrubbed.sort() };
}

export function isSecretEnvName(name: string, patterns: readonly string[] = DEFAULT_SECRET_ENV_PATTERNS): boolean {
  return isSecretName(name, patterns);
}
