/**
 * Validates the `hooks` key of settings files (Claude Code's format, reference A1) and merges every source into one
 * `HooksConfig`. Hooks that silently never fire are a top complaint (user-asks #7), so every dropped entry gets an
 * error naming the file, the event and the index, and every oddity that is kept gets a warning.
 */
import { applyHttpPolicy, hookSourceIsOff, type HookPolicy } from './hook-policy.js';
import { LOOP_HOOK_EVENT_NAMES } from './loop-hooks.js';
import { hookMatcherError } from './matcher.js';
import {
  CLAUDE_CODE_HOOK_EVENTS,
  HOOK_EVENT_NAMES,
  type ClaudeCodeHookEventName,
  type HookHandler,
  type HookMatcherGroup,
  type HooksConfig,
  type HooksSettingsSource,
  type ParsedHooksSettings,
} from './types.js';

const KNOWN_EVENTS = new Set<string>(CLAUDE_CODE_HOOK_EVENTS);
// The agent loop (`query()`) fires its own four events beside the tool events.
const FIRED_EVENTS = new Set<string>([...HOOK_EVENT_NAMES, ...LOOP_HOOK_EVENT_NAMES]);
const GROUP_KEYS = new Set(['matcher', 'hooks']);
const COMMON_KEYS = ['type', 'if', 'timeout', 'statusMessage', 'once', 'failClosed'];
const HANDLER_KEYS: Record<string, Set<string>> = {
  command: new Set([...COMMON_KEYS, 'command', 'args', 'async', 'asyncRewake', 'shell']),
  http: new Set([...COMMON_KEYS, 'url', 'headers', 'allowedEnvVars']),
  mcp_tool: new Set([...COMMON_KEYS, 'server', 'tool', 'input']),
  prompt: new Set([...COMMON_KEYS, 'prompt', 'model']),
  agent: new Set([...COMMON_KEYS, 'prompt', 'model']),
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Every source's hooks, checked and merged. `policy` (the hook settings: hook-policy.ts) is applied here, the one
 * place hooks are assembled: a source it turns off is left out whole, an http hook it refuses is dropped, each with a
 * warning — a hook that silently never fires is what people complain about most.
 */
export function parseHooksSettings(bySource: HooksSettingsSource[], policy?: HookPolicy): ParsedHooksSettings {
  const config: { [E in ClaudeCodeHookEventName]?: HookMatcherGroup[] } = {};
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const src of bySource) {
    if (hookSourceIsOff(policy, src.source)) {
      if (src.hooks !== undefined && src.hooks !== null) warnings.push(`${src.file ?? src.source}: hooks not run (${policy!.off!.why})`);
      continue;
    }
    parseSource(src, config, errors, warnings, policy);
  }
  return { config: config as HooksConfig, errors, warnings };
}

function parseSource(
  src: HooksSettingsSource,
  config: { [E in ClaudeCodeHookEventName]?: HookMatcherGroup[] },
  errors: string[],
  warnings: string[],
  policy: HookPolicy | undefined,
): void {
  const where = src.file ?? src.source;
  if (src.hooks === undefined || src.hooks === null) return;
  if (!isPlainObject(src.hooks)) {
    errors.push(`${where}: "hooks" must be an object mapping event names to matcher groups (got ${describe(src.hooks)})`);
    return;
  }
  for (const [event, groups] of Object.entries(src.hooks)) {
    const at = `${where}: hooks.${event}`;
    if (!KNOWN_EVENTS.has(event)) {
      const guess = CLAUDE_CODE_HOOK_EVENTS.find((e) => e.toLowerCase() === event.toLowerCase().replace(/[-_ ]/g, ''));
      warnings.push(`${at}: unknown hook event, ignored${guess ? ` (did you mean "${guess}"?)` : ''}`);
      continue;
    }
    if (!Array.isArray(groups)) {
      errors.push(`${at}: must be an array of matcher groups like [{ "matcher": "Bash", "hooks": [...] }] (got ${describe(groups)})`);
      continue;
    }
    if (!FIRED_EVENTS.has(event)) {
      warnings.push(`${at}: toolgate does not fire ${event} (a Claude Code session event); kept but never run`);
    }
    const list = (config[event as ClaudeCodeHookEventName] ??= []);
    groups.forEach((group, gi) => {
      const parsed = parseGroup(group, `${at}[${gi}]`, errors, warnings);
      if (parsed) parsed.hooks = withPolicy(parsed.hooks, `${at}[${gi}]`, policy, warnings);
      if (parsed) list.push({ ...parsed, source: src.source, file: src.file, path: `hooks.${event}[${gi}]`, ...(src.env ? { env: src.env } : {}) });
    });
  }
}

/** The group's handlers as the policy lets them run: refused http hooks dropped, their variables narrowed. */
function withPolicy(hooks: HookHandler[], at: string, policy: HookPolicy | undefined, warnings: string[]): HookHandler[] {
  const out: HookHandler[] = [];
  for (const h of hooks) {
    if (h.type !== 'http') {
      out.push(h);
      continue;
    }
    const r = applyHttpPolicy(h, policy);
    if ('refused' in r) {
      warnings.push(`${at}: http hook not run: ${r.refused}`);
      continue;
    }
    const dropped = (h.allowedEnvVars ?? []).filter((v) => !(r.handler.allowedEnvVars ?? []).includes(v));
    if (dropped.length > 0) warnings.push(`${at}: http hook to ${h.url}: ${dropped.join(', ')} not expanded in its headers (not in httpHookAllowedEnvVars)`);
    out.push(r.handler);
  }
  return out;
}

function parseGroup(
  group: unknown,
  at: string,
  errors: string[],
  warnings: string[],
): { matcher?: string; hooks: HookHandler[] } | undefined {
  if (!isPlainObject(group)) {
    errors.push(`${at}: a matcher group must be an object { "matcher": …, "hooks": [...] } (got ${describe(group)})`);
    return undefined;
  }
  if (group.hooks === undefined && ('command' in group || 'type' in group)) {
    errors.push(`${at}: a handler was placed directly in the matcher group; wrap it: { "matcher": …, "hooks": [ { "type": "command", "command": … } ] }`);
    return undefined;
  }
  let matcher: string | undefined;
  if (group.matcher !== undefined) {
    if (typeof group.matcher !== 'string') {
      const old = isPlainObject(group.matcher) ? ' (the object form {"tool_name": …} is an old format; use a string such as "Bash" or "Edit|Write")' : '';
      errors.push(`${at}.matcher: must be a string${old} (got ${describe(group.matcher)})`);
      return undefined;
    }
    const bad = hookMatcherError(group.matcher);
    if (bad !== undefined) {
      errors.push(`${at}.matcher: invalid regular expression ${JSON.stringify(group.matcher)}: ${bad}`);
      return undefined;
    }
    matcher = group.matcher;
  }
  if (!Array.isArray(group.hooks)) {
    errors.push(`${at}.hooks: must be an array of handlers (got ${describe(group.hooks)})`);
    return undefined;
  }
  for (const key of Object.keys(group)) {
    if (!GROUP_KEYS.has(key)) warnings.push(`${at}: unknown key "${key}" ignored (a matcher group has "matcher" and "hooks")`);
  }
  const hooks: HookHandler[] = [];
  group.hooks.forEach((h, hi) => {
    const parsed = parseHandler(h, `${at}.hooks[${hi}]`, errors, warnings);
    if (parsed) hooks.push(parsed);
  });
  return { matcher, hooks };
}

function parseHandler(h: unknown, at: string, errors: string[], warnings: string[]): HookHandler | undefined {
  if (!isPlainObject(h)) {
    errors.push(`${at}: a handler must be an object like { "type": "command", "command": "…" } (got ${describe(h)})`);
    return undefined;
  }
  const type = h.type;
  if (type === undefined) {
    const hint = typeof h.command === 'string' ? ' (add "type": "command")' : '';
    errors.push(`${at}.type: missing; expected one of command, http, mcp_tool, prompt, agent${hint}`);
    return undefined;
  }
  if (typeof type !== 'string' || !(type in HANDLER_KEYS)) {
    errors.push(`${at}.type: must be one of command, http, mcp_tool, prompt, agent (got ${describe(type)})`);
    return undefined;
  }
  const fail = (field: string, msg: string) => {
    errors.push(`${at}.${field}: ${msg} (got ${describe(h[field])})`);
    return undefined;
  };
  const base: Mutable<Omit<HookHandler, 'type'>> & Record<string, unknown> = {};
  if (h.if !== undefined) {
    if (typeof h.if !== 'string' || h.if.trim() === '') return fail('if', 'must be one permission rule string such as "Bash(git *)"');
    base.if = h.if;
  }
  if (h.timeout !== undefined) {
    if (typeof h.timeout !== 'number' || !Number.isFinite(h.timeout) || h.timeout <= 0) {
      return fail('timeout', 'must be a positive number of seconds');
    }
    base.timeout = h.timeout;
  }
  for (const flag of ['failClosed', 'once'] as const) {
    if (h[flag] !== undefined) {
      if (typeof h[flag] !== 'boolean') return fail(flag, 'must be true or false');
      base[flag] = h[flag];
    }
  }
  if (h.statusMessage !== undefined) {
    if (typeof h.statusMessage !== 'string') return fail('statusMessage', 'must be a string');
    base.statusMessage = h.statusMessage;
  }
  for (const key of Object.keys(h)) {
    if (!HANDLER_KEYS[type]!.has(key)) warnings.push(`${at}: unknown key "${key}" ignored for a ${type} hook`);
  }
  if (base.once) warnings.push(`${at}.once: only meaningful in skill frontmatter; toolgate runs this hook every time`);

  if (type === 'command') {
    if (typeof h.command !== 'string' || h.command.trim() === '') return fail('command', 'must be a non-empty string');
    const out: Mutable<Extract<HookHandler, { type: 'command' }>> = { ...base, type, command: h.command };
    if (h.args !== undefined) {
      if (!Array.isArray(h.args) || !h.args.every((a) => typeof a === 'string')) return fail('args', 'must be an array of strings');
      out.args = h.args as string[];
    }
    for (const flag of ['async', 'asyncRewake'] as const) {
      if (h[flag] !== undefined) {
        if (typeof h[flag] !== 'boolean') return fail(flag, 'must be true or false');
        out[flag] = h[flag];
      }
    }
    if (h.shell !== undefined) {
      if (h.shell !== 'bash' && h.shell !== 'powershell') return fail('shell', 'must be "bash" or "powershell"');
      out.shell = h.shell;
    }
    if ((out.async || out.asyncRewake) && out.failClosed) {
      warnings.push(`${at}: failClosed has no effect on an async hook (it cannot decide)`);
    }
    return out;
  }
  if (type === 'http') {
    if (typeof h.url !== 'string' || !/^https?:\/\//i.test(h.url)) return fail('url', 'must be an http(s) URL');
    const out: Mutable<Extract<HookHandler, { type: 'http' }>> = { ...base, type, url: h.url };
    if (h.headers !== undefined) {
      if (!isPlainObject(h.headers) || !Object.values(h.headers).every((v) => typeof v === 'string')) {
        return fail('headers', 'must be an object of string values');
      }
      out.headers = h.headers as Record<string, string>;
    }
    if (h.allowedEnvVars !== undefined) {
      if (!Array.isArray(h.allowedEnvVars) || !h.allowedEnvVars.every((a) => typeof a === 'string')) {
        return fail('allowedEnvVars', 'must be an array of variable names');
      }
      out.allowedEnvVars = h.allowedEnvVars as string[];
    }
    return out;
  }
  warnings.push(`${at}: "${type}" hooks are not supported by toolgate; this hook is skipped`);
  return { ...base, type: type as 'mcp_tool' | 'prompt' | 'agent', raw: { ...h } };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return `${typeof v} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}
