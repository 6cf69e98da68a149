/**
 * Redaction at the result boundary: every known secret value is replaced in every tool_result — text the tool
 * returned, output a PostToolUse hook substituted, an error message, the file an oversized result is persisted to —
 * by `[REDACTED:<NAME>]`. Known secrets are: the values of environment variables that look like credentials (the
 * ones Bash scrubs from its children; a `scheme://user:password@host` value whatever its name), values tools report
 * through `registerSecretValues` (Bash's own scrub list when settings change it), and the strings and file contents
 * `settings.redaction` names. So `cat /proc/*\/environ`, `ps eww`, a printed `.env` or a stack trace cannot carry a
 * known secret to the model — whichever tool (built-in, MCP, custom) produced it.
 *
 * A tool's newMessages, hook context and background notifications are redacted as results are (outcome.ts,
 * streaming-tool-executor.ts). The environment is looked at again at the start of every run of a runtime
 * (`refreshEnvironmentSecrets`), and `settings.env` is part of what a context's settings redact, so a reload counts.
 *
 * Cost: one Wu–Manber pass over the text for all the long secrets at once (secret-scanner.ts); nothing is copied when
 * none occurs. `npm run bench -- --filter redaction` measures it.
 */
import type { MessageParam, ToolResultBlockParam } from '../tool/tool.js';
import type { ToolSettings, ToolUseContext } from '../tool/tool-use-context.js';
import { SecretScanner, type SecretPattern } from './secret-scanner.js';
import { readConfigText } from '../tool/read-config-file.js';

/** The `redaction` key of toolgate's settings: which secrets are replaced by `[REDACTED:NAME]` in tool results. */
export interface RedactionSettings {
  /** Default true. */
  readonly enabled?: boolean;
  /** Literal secret strings, or `{ NAME: value }` to name their marker. */
  readonly secrets?: readonly string[] | Readonly<Record<string, string>>;
  /** Files whose contents (whole, and each line of 8+ characters) are secrets: keys, `.env` files, credentials. */
  readonly secretFiles?: readonly string[];
  /** Environment variable name patterns (glob `*`, case-insensitive) whose values are secrets; replaces the default list. */
  readonly envPatterns?: readonly string[];
  /** Names never treated as secrets (as Bash's `passEnv`). */
  readonly passEnv?: readonly string[];
}

declare module '../tool/tool-use-context.js' {
  interface ToolSettings {
    /** Secrets replaced in every tool result (`[REDACTED:NAME]`); on by default, with the environment's credentials. */
    readonly redaction?: RedactionSettings;
  }
}

/** Names of environment variables that hold credentials. Bash removes them from its children; results redact them. */
export const DEFAULT_SECRET_ENV_PATTERNS: readonly string[] = [
  'ANTHROPIC_API_KEY',
  '*_API_KEY',
  '*_APIKEY',
  '*_TOKEN',
  '*_SECRET',
  '*_SECRET_*',
  'SECRET_*',
  '*PASSWORD',
  '*PASSWD',
  '*_ACCESS_KEY',
  '*_ACCESS_KEY_ID',
  '*_PRIVATE_KEY',
  '*_CREDENTIALS',
  'GOOGLE_APPLICATION_CREDENTIALS*',
  'DATABASE_URL',
  '*_DATABASE_URL',
  '*_DSN',
  '*_WEBHOOK_URL',
  '*_WEBHOOK',
  '*_CONNECTION_STRING',
];

/**
 * How short a secret may be. A value whose variable name (or a `redaction.secrets` setting) says it is a secret counts
 * from 4 characters — a 5-character password is still a password — and, under 6, only as a whole word, so that it is
 * hidden where it is printed without cutting it out of every longer word. A value known only by where it was found (a
 * line of a secret file) counts from 6. Shorter than 4, or a flag such as `true`/`off`/`none`, is never a secret: a
 * marker for `1` would destroy the output and protect nothing.
 */
export const MIN_SECRET_LENGTH = 6;
export const MIN_NAMED_SECRET_LENGTH = 4;
/** Values that are settings, not secrets, whatever the variable is called. */
const NOT_SECRETS: ReadonlySet<string> = new Set(['true', 'false', 'null', 'none', 'undefined', 'yes', 'no', 'on', 'off', 'enabled', 'disabled', 'unset', 'empty', 'changeme']);

// — names —

type NameMatcher = (upperName: string) => boolean;
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

export function isSecretEnvName(name: string, patterns: readonly string[] = DEFAULT_SECRET_ENV_PATTERNS): boolean {
  return namedSecret(compiled(patterns), name);
}

/**
 * The verdicts on names so far, per compiled list: a pure function of the list and the name, asked for every variable
 * of the environment before each command (tens of globs each) and nearly always of the same names.
 */
const nameVerdicts = new WeakMap<NameMatcher[], Map<string, boolean>>();
const MAX_NAME_VERDICTS = 4096;

function namedSecret(matchers: NameMatcher[], name: string): boolean {
  let verdicts = nameVerdicts.get(matchers);
  if (verdicts === undefined) nameVerdicts.set(matchers, (verdicts = new Map()));
  let verdict = verdicts.get(name);
  if (verdict === undefined) {
    const upper = name.toUpperCase();
    verdict = matchers.some((matches) => matches(upper));
    if (verdicts.size >= MAX_NAME_VERDICTS) verdicts.clear();
    verdicts.set(name, verdict);
  }
  return verdict;
}

const URL_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/([^/\s:@]*):([^/\s@]+)@/i;

/** `postgres://user:pw@host/db`, `https://x:token@github.com`: a URL carrying a password, whatever the variable is called. */
export function urlCredentials(value: string): { password: string } | undefined {
  const m = URL_CREDENTIALS.exec(value);
  return m ? { password: m[2]! } : undefined;
}

export interface SecretEnvOptions {
  readonly patterns?: readonly string[];
  readonly passEnv?: readonly string[];
}

/** Whether a variable is a secret: by its name, or by a credential-carrying URL value — unless passed by name. */
export function secretEnvTest(options: SecretEnvOptions = {}): (name: string, value: string) => boolean {
  const matchers = compiled(options.patterns ?? DEFAULT_SECRET_ENV_PATTERNS);
  const pass = new Set((options.passEnv ?? []).map((n) => n.toUpperCase()));
  return (name, value) => (pass.size === 0 || !pass.has(name.toUpperCase())) && (namedSecret(matchers, name) || urlCredentials(value) !== undefined);
}

/** The variables of `env` that are secrets: by name, or by a credential-carrying URL value. */
export function secretEnvNames(env: NodeJS.ProcessEnv, options: SecretEnvOptions = {}): string[] {
  const isSecret = secretEnvTest(options);
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) if (value !== undefined && isSecret(name, value)) out.push(name);
  return out;
}

// — values —

export interface SecretEntry {
  /** What the marker names: an environment variable, `secret`, or `file:<path>`. */
  readonly label: string;
  readonly value: string;
  /** A name or a setting says this value is a secret: it counts from `MIN_NAMED_SECRET_LENGTH` characters. */
  readonly named?: boolean;
}

/** Whether `value` (trimmed) is long enough, and not a flag, to be redacted. */
export function isRedactableSecret(value: string, named = false): boolean {
  const v = value.trim();
  if (v.length < (named ? MIN_NAMED_SECRET_LENGTH : MIN_SECRET_LENGTH)) return false;
  return v.length > 9 || !NOT_SECRETS.has(v.toLowerCase());
}

/** The entries for one environment variable: its value and, for a URL, the password inside it. */
export function envSecretEntries(name: string, value: string): SecretEntry[] {
  // Named: secretEnvNames chose it by its name or because it is a URL carrying a password.
  const out: SecretEntry[] = [{ label: name, value, named: true }];
  const creds = urlCredentials(value);
  if (creds) {
    out.push({ label: name, value: creds.password, named: true });
    try {
      const decoded = decodeURIComponent(creds.password);
      if (decoded !== creds.password) out.push({ label: name, value: decoded, named: true });
    } catch {
      // not percent-encoded after all
    }
  }
  return out;
}

export class SecretRedactor {
  readonly #size: number;
  readonly #scanner: SecretScanner | undefined;
  /** Blocks this redactor produced or found clean: the pipeline's last net does not scan them twice. */
  readonly #clean = new WeakSet<ToolResultBlockParam>();

  constructor(entries: Iterable<SecretEntry>) {
    const byValue = new Map<string, SecretPattern>();
    for (const { label, value, named } of entries) {
      const v = value.trim();
      if (byValue.has(v) || !isRedactableSecret(v, named === true)) continue;
      byValue.set(v, { value: v, marker: `[REDACTED:${label}]`, wholeWord: v.length < MIN_SECRET_LENGTH });
    }
    this.#size = byValue.size;
    this.#scanner = byValue.size === 0 ? undefined : new SecretScanner([...byValue.values()]);
  }

  get size(): number {
    return this.#size;
  }

  /** `text` with every secret replaced; the same string when none occurs. */
  redactText(text: string): string {
    return this.#scanner === undefined ? text : this.#scanner.replace(text);
  }

  /** A message's text (a string, text blocks, tool_result blocks inside it) redacted; the same object when clean. */
  redactMessage(message: MessageParam): MessageParam {
    if (this.#scanner === undefined) return message;
    const { content } = message;
    if (typeof content === 'string') {
      const text = this.redactText(content);
      return text === content ? message : { ...message, content: text };
    }
    if (!Array.isArray(content)) return message;
    let changed = false;
    const parts = content.map((part) => {
      let next = part;
      if (part.type === 'text' && typeof part.text === 'string') {
        const text = this.redactText(part.text);
        if (text !== part.text) next = { ...part, text };
      } else if (part.type === 'tool_result') next = this.redactBlock(part);
      if (next !== part) changed = true;
      return next;
    });
    return changed ? ({ ...message, content: parts } as MessageParam) : message;
  }

  /** Every string inside plain JSON data redacted (MCP `structuredContent`, `_meta`); the same value when clean. */
  redactJson<T>(value: T, depth = 0): T {
    if (this.#scanner === undefined) return value;
    if (typeof value === 'string') return this.redactText(value) as T;
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    let changed = false;
    if (Array.isArray(value)) {
      const out = value.map((v: unknown) => {
        const r = this.redactJson(v, depth + 1);
        if (r !== v) changed = true;
        return r;
      });
      return (changed ? out : value) as T;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const r = this.redactJson(v, depth + 1);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return (changed ? out : value) as T;
  }

  /** The block with its text parts redacted (images untouched); the same object when nothing changed. */
  redactBlock(block: ToolResultBlockParam): ToolResultBlockParam {
    if (this.#scanner === undefined || this.#clean.has(block)) return block;
    const out = this.#redactContent(block);
    this.#clean.add(out);
    return out;
  }

  #redactContent(block: ToolResultBlockParam): ToolResultBlockParam {
    const { content } = block;
    if (typeof content === 'string') {
      const text = this.redactText(content);
      return text === content ? block : { ...block, content: text };
    }
    if (!Array.isArray(content)) return block;
    let changed = false;
    const parts = content.map((part) => {
      if (part.type !== 'text' || typeof part.text !== 'string') return part;
      const text = this.redactText(part.text);
      if (text === part.text) return part;
      changed = true;
      return { ...part, text };
    });
    return changed ? { ...block, content: parts } : block;
  }
}

// — what a context redacts —

const registered = new Map<string, SecretEntry>();
let registryVersion = 0;

/** Secrets a tool learned at run time (Bash's scrub list under custom patterns); redacted from then on, process-wide. */
export function registerSecretValues(entries: Iterable<SecretEntry>): void {
  for (const entry of entries) {
    if (!isRedactableSecret(entry.value, entry.named === true)) continue;
    const key = `${entry.label}\0${entry.value}`;
    if (registered.has(key)) continue;
    registered.set(key, entry);
    registryVersion++;
  }
}

const cache = new WeakMap<ToolSettings, { version: number; env: NodeJS.ProcessEnv; redactor: SecretRedactor }>();

let envSignature: string | undefined;

/**
 * Looks at the environment again: a credential set or changed in `process.env` since the last look is redacted from
 * the next result on. One pass over the variables (~0.1 ms): the runtime calls it at the start of every run, which is
 * cheap there and too dear per call. A program that drives the executor itself calls it after changing the environment.
 */
export function refreshEnvironmentSecrets(env: NodeJS.ProcessEnv = process.env): boolean {
  let signature = '';
  // Object.keys, not for…in: each for…in step asks the environment again whether the name is there (a third of
  // the cost, per run, with the 70-odd variables of an npm script).
  for (const name of Object.keys(env)) signature += `${name}\u0000${env[name] ?? ''}\u0001`;
  if (signature === envSignature) return false;
  envSignature = signature;
  registryVersion++;
  return true;
}

/**
 * The redactor for this context's settings: the environment's credentials, the credentials among `settings.env`
 * (which Bash sets for its children by name), registered and configured secrets. Cached per settings object — new
 * settings (a reload) get a new redactor — and rebuilt when a tool registers secrets or the environment was seen to
 * change (`refreshEnvironmentSecrets`); undefined when off.
 */
export function redactorFor(context: Pick<ToolUseContext, 'options'>, env: NodeJS.ProcessEnv = process.env): SecretRedactor | undefined {
  const settings = context.options.settings;
  const config = settings.redaction;
  if (config?.enabled === false) return undefined;
  const hit = cache.get(settings);
  if (hit !== undefined && hit.version === registryVersion && hit.env === env) return hit.redactor.size > 0 ? hit.redactor : undefined;
  // A session's own environment (`baseEnv`) holds credentials too: its secrets are redacted beside the process's.
  const redactor = buildRedactor(config ?? {}, env, settings.baseEnv ? { ...settings.baseEnv, ...settings.env } : settings.env);
  cache.set(settings, { version: registryVersion, env, redactor });
  return redactor.size > 0 ? redactor : undefined;
}

export function buildRedactor(
  config: RedactionSettings,
  env: NodeJS.ProcessEnv = process.env,
  settingsEnv: Readonly<Record<string, string>> = {},
): SecretRedactor {
  const entries: SecretEntry[] = [];
  const options = { patterns: config.envPatterns, passEnv: config.passEnv };
  for (const source of [env, settingsEnv]) {
    for (const name of secretEnvNames(source, options)) entries.push(...envSecretEntries(name, source[name]!));
  }
  entries.push(...registered.values());
  const secrets = config.secrets;
  if (Array.isArray(secrets)) for (const value of secrets) entries.push({ label: 'secret', value, named: true });
  else if (secrets !== undefined) for (const [label, value] of Object.entries(secrets)) entries.push({ label, value, named: true });
  for (const file of config.secretFiles ?? []) {
    // A listed file that is not there holds nothing to hide; one that is not a regular file (a FIFO would hang every
    // run) or is huge is skipped too.
    const read = readConfigText(file, { lenientUtf8: true });
    if (read.kind !== 'ok') continue;
    const text = read.text;
    const label = `file:${file}`;
    entries.push({ label, value: text });
    for (const line of text.split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed.startsWith('#')) continue;
      if (trimmed.length >= 8) entries.push({ label, value: trimmed });
      // KEY=value lines: the value alone, as a program would print it.
      const eq = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*["']?(.*?)["']?$/.exec(trimmed);
      if (eq && eq[1]!.length >= MIN_SECRET_LENGTH) entries.push({ label, value: eq[1]! });
    }
  }
  return new SecretRedactor(entries);
}
