/**
 * The decisions `toolgate hook` made, for people: one JSON line per host call in `<state>/toolgate/hook-log.jsonl`
 * (`$XDG_STATE_HOME`, else `~/.local/state`), private to the user (0600 in a 0700 folder), rolled over to
 * `hook-log.1.jsonl` past 1 MiB so it never grows without end. Each entry holds the host, the tool and its input, the
 * answer, and the engine's trace (layer, rule, source, reason). Secrets are redacted before anything is written: the
 * values the house's redaction knows (credential-looking environment variables, `settings.env`, the `redaction`
 * settings of toolgate's key) and long strings are cut. A log that cannot be written costs the decision nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stateDirectory } from '../../agent/session-dir.js';
import { buildRedactor, type RedactionSettings, type SecretRedactor } from '../../execution/redaction.js';
import type { HookRequest } from './hook-hosts.js';
import type { HookVerdict } from './hook-judge.js';

export const HOOK_LOG_MAX_BYTES = 1024 * 1024;
const MAX_STRING = 2000;

export function hookLogFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDirectory(env), 'hook-log.jsonl');
}

export interface HookLogEntry {
  readonly time: string;
  readonly host: string;
  readonly event: string;
  readonly session?: string;
  readonly cwd: string;
  readonly tool: string;
  readonly input: unknown;
  readonly answer: string;
  readonly reason: string;
  readonly calls: readonly { tool: string; behavior?: string; layer?: string; rule?: string | null; source?: string | null; reason?: string; answer: string }[];
  readonly ms?: number;
}

type RedactedSettings = { toolgate?: Readonly<Record<string, unknown>>; env?: Readonly<Record<string, string>> };
const redactors = new WeakMap<object, { env: NodeJS.ProcessEnv; redactor: SecretRedactor }>();
const NO_SETTINGS = {};

/**
 * The redactor for a log entry: the environment's credentials and the settings' own secrets. Made once per settings
 * object and environment (a server answers thousands of requests under one; scanning the environment each time was a
 * tenth of a decision).
 */
export function logRedactor(settings: RedactedSettings | undefined, env: NodeJS.ProcessEnv = process.env): SecretRedactor {
  const hit = redactors.get(settings ?? NO_SETTINGS);
  if (hit !== undefined && hit.env === env) return hit.redactor;
  const key = settings?.toolgate?.redaction;
  const config = key !== null && typeof key === 'object' && !Array.isArray(key) ? (key as RedactionSettings) : {};
  const redactor = buildRedactor(config, env, settings?.env ?? {});
  redactors.set(settings ?? NO_SETTINGS, { env, redactor });
  return redactor;
}

export function logEntry(request: HookRequest | undefined, verdict: HookVerdict | undefined, fallback: { answer: string; reason: string }, redactor: SecretRedactor, ms?: number): HookLogEntry {
  const clean = <T>(v: T): T => cut(redactor.redactJson(v));
  return {
    time: new Date().toISOString(),
    host: request?.host ?? 'unknown',
    event: request?.event ?? 'unknown',
    ...(request?.sessionId !== undefined ? { session: clean(request.sessionId) } : {}),
    cwd: clean(request?.cwd ?? ''),
    tool: clean(request?.hostTool ?? ''),
    input: clean(request?.hostInput ?? null),
    answer: verdict?.answer.kind ?? fallback.answer,
    reason: clean(verdict?.answer.reason ?? fallback.reason),
    calls: (verdict?.calls ?? []).map((c) => ({
      tool: c.call.tool,
      answer: c.answer.kind,
      ...(c.decision ? { behavior: c.decision.behavior, layer: c.decision.layer, rule: clean(c.decision.rule), source: c.decision.source, reason: clean(c.decision.reason) } : {}),
    })),
    ...(ms !== undefined ? { ms: Math.round(ms * 100) / 100 } : {}),
  };
}

/** Long strings cut (a command of megabytes is not kept whole), depth-limited. */
function cut<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return (value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}... [${value.length - MAX_STRING} more characters]` : value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[nested too deep]' as T;
  if (Array.isArray(value)) return value.slice(0, 100).map((v: unknown) => cut(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, 100)) out[k] = cut(v, depth + 1);
  return out as T;
}

/** Appends one entry (one write of one line, O_APPEND: concurrent hooks do not interleave), rolling over when full. */
export function appendHookLog(entry: HookLogEntry, file: string = hookLogFile()): void {
  appendHookLines([entry], file);
}

/** Appends entries in one write (the server's batch of one turn of its event loop). */
export function appendHookLines(entries: readonly HookLogEntry[], file: string = hookLogFile()): void {
  try {
    const line = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    let size = 0;
    try {
      size = fs.statSync(file).size;
    } catch {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    }
    if (size + line.length > HOOK_LOG_MAX_BYTES) fs.renameSync(file, file.replace(/\.jsonl$/, '.1.jsonl'));
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, line);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // The decision is already made and printed; a log that cannot be written (read-only home, full disk) costs nothing.
  }
}

/** The last `count` entries, oldest first (the rolled-over file first when the current one has fewer). */
export function readHookLog(count: number, file: string = hookLogFile()): HookLogEntry[] {
  const lines: string[] = [];
  for (const f of [file.replace(/\.jsonl$/, '.1.jsonl'), file]) {
    try {
      lines.push(...fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() !== ''));
    } catch {
      // absent
    }
  }
  const out: HookLogEntry[] = [];
  for (const line of lines.slice(-count)) {
    try {
      out.push(JSON.parse(line) as HookLogEntry);
    } catch {
      // a line cut by a crash: skipped
    }
  }
  return out;
}

/** An entry in words: when, where, what, the answer and why. */
export function formatHookLogEntry(e: HookLogEntry): string {
  const input = e.input !== null && typeof e.input === 'object' ? (e.input as Record<string, unknown>) : {};
  const what = ['command', 'file_path', 'path', 'url', 'pattern', 'prompt'].map((k) => input[k]).find((v) => typeof v === 'string') as string | undefined;
  const lines = [`${e.time}  ${e.host} ${e.event}  ${e.tool}${what !== undefined ? ` ${JSON.stringify(what.length > 200 ? `${what.slice(0, 200)}...` : what)}` : ''}`, `  answer: ${e.answer.toUpperCase()}  (${e.cwd})`];
  for (const c of e.calls) {
    if (c.layer === undefined) continue;
    lines.push(`  ${c.tool}: ${c.behavior} by ${c.layer}${c.rule ? ` — rule ${c.rule}${c.source ? ` (${c.source})` : ''}` : ''}`);
    lines.push(`    ${c.reason ?? ''}`);
  }
  if (e.calls.every((c) => c.layer === undefined)) lines.push(`  ${e.reason}`);
  return lines.join('\n');
}
