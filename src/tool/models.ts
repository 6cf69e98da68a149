/**
 * Model names: the one table of aliases and the one default. Every place that takes a model from a person or a file
 * (`--model`, `/model`, the Agent tool's `model`, a command's or agent's frontmatter, WebFetch's small model) resolves
 * it here, so `sonnet` means the same model everywhere.
 *
 * The ids are the ones Claude Code 2.1.328 sends for its aliases (observed by pointing it at `toolgate/testing`'s
 * server and reading each request's `model`). As in Claude Code, `ANTHROPIC_DEFAULT_SONNET_MODEL`,
 * `ANTHROPIC_DEFAULT_OPUS_MODEL`, `ANTHROPIC_DEFAULT_HAIKU_MODEL` and `ANTHROPIC_DEFAULT_FABLE_MODEL` replace an
 * alias's id, an alias is matched without regard to case, `default` is Claude Code's default for an API key (the
 * opus alias), and any other name (a full model id) is sent as given. The table lives in the contract layer because
 * tools resolve names too and may not import the agent layer.
 */

/** Claude Code's aliases and the ids it sends for them. */
export const MODEL_ALIASES: Readonly<Record<ModelAlias, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
};

export type ModelAlias = 'sonnet' | 'opus' | 'haiku' | 'fable';

const OVERRIDES: Readonly<Record<ModelAlias, string>> = {
  sonnet: 'ANTHROPIC_DEFAULT_SONNET_MODEL',
  opus: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  haiku: 'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  fable: 'ANTHROPIC_DEFAULT_FABLE_MODEL',
};

/** The alias a session uses when no model is named (Claude Code's `default` for an API key). */
export const DEFAULT_MODEL_ALIAS: ModelAlias = 'opus';

/** The model id used when none is given (the table's default alias, without environment overrides). */
export const DEFAULT_MODEL: string = MODEL_ALIASES[DEFAULT_MODEL_ALIAS];

/** The small, fast model of side calls (WebFetch's prompt over a page): `ANTHROPIC_SMALL_FAST_MODEL`, else haiku. */
export function smallFastModel(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const named = env.ANTHROPIC_SMALL_FAST_MODEL?.trim();
  return named ? resolveModel(named, env) : resolveModel('haiku', env);
}

/**
 * A model name as a person or a file gives it → the id to send. `undefined` or empty: `ANTHROPIC_MODEL` if set,
 * else the default. An alias (any case, with or without Claude Code's `[1m]` suffix — toolgate sends no 1M-context
 * beta) → its id, or its `ANTHROPIC_DEFAULT_*_MODEL` override. Anything else is returned unchanged.
 */
export function resolveModel(name: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const given = name?.trim();
  if (!given) {
    const fromEnv = env.ANTHROPIC_MODEL?.trim();
    return fromEnv ? resolveModel(fromEnv, { ...env, ANTHROPIC_MODEL: undefined }) : resolveAlias(DEFAULT_MODEL_ALIAS, env);
  }
  const key = given.toLowerCase().replace(/\[1m\]$/, '');
  if (key === 'default') return resolveAlias(DEFAULT_MODEL_ALIAS, env);
  return isModelAlias(key) ? resolveAlias(key, env) : given;
}

export function isModelAlias(name: string): name is ModelAlias {
  return Object.hasOwn(MODEL_ALIASES, name);
}

function resolveAlias(alias: ModelAlias, env: Readonly<Record<string, string | undefined>>): string {
  const override = env[OVERRIDES[alias]]?.trim();
  return override || MODEL_ALIASES[alias];
}
