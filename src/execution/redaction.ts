/**
 * Redaction at the result boundary: every known secret value is replaced in every tool_result — text the tool
 * returned, output a PostToolUse hook substituted, an error message, the file an oversized result is persisted to —
 * by `[REDACTED:<NAME>]`. Known secrets are: the values of environment variables that look like credentials (the
 * ones Bash scrubs from its children; a `scheme://user:password@host` value whatever its name), values tools report
 * through `registerSecretValues` (Bash's own scrub list when settings change it), and the strings and file contents
 * `settings.redaction` names. So `cat /proc/*\/environ`, `ps eww`, a printed `.env` or a stack trace cannot carry a
 * known secret to the model — whichever tool (built-in, MCP, custom) produced it.
 *
 * Cost: one Wu–Manber pass over the text for all the secrets at once; nothing is copied when none occurs. `npm run bench -- --filter redaction` measures it.
 */
import { readFileSync } from 'node:fs';
import type { ToolResultBlockParam } from '../tool/tool.js';
import type { ToolSettings, ToolUseContext } from '../tool/tool-use-context.js';

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

/** A marker for a value shorter than this would redact ordinary words and digits: such values are left alone. */
export const MIN_SECRET_LENGTH = 6;

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
  const upper = name.toUpperCase();
  return compiled(patterns).some((matches) => matches(upper));
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

/** The variables of `env` that are secrets: by name, or by a credential-carrying URL value. */
export function secretEnvNames(env: NodeJS.ProcessEnv, options: SecretEnvOptions = {}): string[] {
  const matchers = compiled(options.patterns ?? DEFAULT_SECRET_ENV_PATTERNS);
  const pass = new Set((options.passEnv ?? []).map((n) => n.toUpperCase()));
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (pass.has(upper)) continue;
    if (matchers.some((m) => m(upper)) || urlCredentials(value) !== undefined) out.push(name);
  }
  return out;
}

// — values —

export interface SecretEntry {
  /** What the marker names: an environment variable, `secret`, or `file:<path>`. */
  readonly label: string;
  readonly value: string;
}

/** The entries for one environment variable: its value and, for a URL, the password inside it. */
export function envSecretEntries(name: string, value: string): SecretEntry[] {
  const out: SecretEntry[] = [{ label: name, value }];
  const creds = urlCredentials(value);
  if (creds) {
    out.push({ label: name, value: creds.password });
    try {
      const decoded = decodeURIComponent(creds.password);
      if (decoded !== creds.password) out.push({ label: name, value: decoded });
    } catch {
      // not percent-encoded after all
    }
  }
  return out;
}

export class SecretRedactor {
  readonly #markers: ReadonlyMap<string, string>;
  readonly #scanner: MultiStringScanner | undefined;
  /** Blocks this redactor produced or found clean: the pipeline's last net does not scan them twice. */
  readonly #clean = new WeakSet<ToolResultBlockParam>();

  constructor(entries: Iterable<SecretEntry>) {
    const byValue = new Map<string, string>();
    for (const { label, value } of entries) {
      const v = value.trim();
      if (v.length < MIN_SECRET_LENGTH || byValue.has(v)) continue;
      byValue.set(v, `[REDACTED:${label}]`);
    }
    this.#markers = byValue;
    this.#scanner = byValue.size === 0 ? undefined : new MultiStringScanner([...byValue.keys()]);
  }

  get size(): number {
    return this.#markers.size;
  }

  /** `text` with every secret replaced; the same string when none occurs. */
  redactText(text: string): string {
    if (this.#scanner === undefined) return text;
    let out: string | undefined;
    let pos = 0;
    this.#scanner.scan(text, (at, secret) => {
      // `+=` builds a rope that is copied once when read; Array#join of slices of a large string measured ~20× slower.
      out = (out ?? '') + text.slice(pos, at) + this.#markers.get(secret)!;
      pos = at + secret.length;
    });
    return out === undefined ? text : out + text.slice(pos);
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
    if (entry.value.trim().length < MIN_SECRET_LENGTH) continue;
    const key = `${entry.label}\0${entry.value}`;
    if (registered.has(key)) continue;
    registered.set(key, entry);
    registryVersion++;
  }
}

const cache = new WeakMap<ToolSettings, { version: number; env: NodeJS.ProcessEnv; redactor: SecretRedactor }>();

/** The redactor for this context's settings (cached; rebuilt when a tool registers new secrets); undefined when off. */
export function redactorFor(context: Pick<ToolUseContext, 'options'>, env: NodeJS.ProcessEnv = process.env): SecretRedactor | undefined {
  const settings = context.options.settings;
  const config = settings.redaction;
  if (config?.enabled === false) return undefined;
  const hit = cache.get(settings);
  if (hit !== undefined && hit.version === registryVersion && hit.env === env) return hit.redactor.size > 0 ? hit.redactor : undefined;
  const redactor = buildRedactor(config ?? {}, env);
  cache.set(settings, { version: registryVersion, env, redactor });
  return redactor.size > 0 ? redactor : undefined;
}

export function buildRedactor(config: RedactionSettings, env: NodeJS.ProcessEnv = process.env): SecretRedactor {
  const entries: SecretEntry[] = [];
  for (const name of secretEnvNames(env, { patterns: config.envPatterns, passEnv: config.passEnv })) {
    entries.push(...envSecretEntries(name, env[name]!));
  }
  entries.push(...registered.values());
  const secrets = config.secrets;
  if (Array.isArray(secrets)) for (const value of secrets) entries.push({ label: 'secret', value });
  else if (secrets !== undefined) for (const [label, value] of Object.entries(secrets)) entries.push({ label, value });
  for (const file of config.secretFiles ?? []) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // a listed file that is not there holds nothing to hide
    }
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

/**
 * Finds many literal strings in one left-to-right pass (Wu–Manber): a table of hashed 3-character blocks says how far
 * the window may jump; only where a block ends a secret's prefix are the candidates compared. With secrets of 16+
 * characters the window moves ~14 characters per step, so 10 MB takes well under a million steps whatever the number
 * of secrets — where one `indexOf` per secret, or a regular expression of them all, slows with every secret added.
 * Matches do not overlap; at one position the longest secret wins.
 */
class MultiStringScanner {
  static readonly #B = 3;
  static readonly #BITS = 15;
  readonly #m: number;
  readonly #shift: Uint8Array;
  readonly #candidates = new Map<number, string[]>();

  constructor(patterns: readonly string[]) {
    const B = MultiStringScanner.#B;
    this.#m = Math.min(16, ...patterns.map((p) => p.length));
    const m = this.#m;
    this.#shift = new Uint8Array(1 << MultiStringScanner.#BITS).fill(m - B + 1);
    for (const p of [...patterns].sort((a, b) => b.length - a.length)) {
      for (let j = 0; j <= m - B; j++) {
        const h = hashOfPattern(p, j);
        const shift = m - B - j;
        if (shift < this.#shift[h]!) this.#shift[h] = shift;
        if (shift === 0) {
          const list = this.#candidates.get(h);
          if (list) list.push(p);
          else this.#candidates.set(h, [p]);
        }
      }
    }
  }

  scan(text: string, onMatch: (at: number, pattern: string) => void): void {
    const m = this.#m;
    const shiftTable = this.#shift;
    const n = text.length;
    let end = m - 1; // index of the last character of the current window
    while (end < n) {
      const h = hash3(text, end - 2);
      const shift = shiftTable[h]!;
      if (shift > 0) {
        end += shift;
        continue;
      }
      const start = end - m + 1;
      let matched: string | undefined;
      for (const p of this.#candidates.get(h)!) {
        if (text.startsWith(p, start)) {
          matched = p;
          break;
        }
      }
      if (matched === undefined) {
        end += 1;
        continue;
      }
      onMatch(start, matched);
      end = start + matched.length + m - 1;
    }
  }
}

/** hash3 for the patterns: a separate function, so the scan's call site sees only flat strings and stays fast. */
function hashOfPattern(s: string, i: number): number {
  return ((s.charCodeAt(i) << 10) ^ (s.charCodeAt(i + 1) << 5) ^ s.charCodeAt(i + 2)) & 0x7fff;
}

function hash3(s: string, i: number): number {
  return ((s.charCodeAt(i) << 10) ^ (s.charCodeAt(i + 1) << 5) ^ s.charCodeAt(i + 2)) & 0x7fff;
}
