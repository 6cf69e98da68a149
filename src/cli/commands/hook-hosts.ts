/**
 * The hook protocols of the agents `toolgate hook` sits in front of, read and written here and nowhere else: what the
 * host sends on stdin (or in an HTTP body) becomes a `HookRequest` — the event, and the call(s) in toolgate's tool
 * names and inputs — and a `HookAnswer` becomes exactly the JSON the host reads. Nothing here judges a call.
 *
 * - Claude Code (https://code.claude.com/docs/en/hooks; shared/reference/hooks-and-settings.md A4–A6): PreToolUse
 *   answers `hookSpecificOutput.permissionDecision` allow/deny/ask with `permissionDecisionReason`; PermissionRequest
 *   answers `hookSpecificOutput.decision.behavior` allow/deny (`message` on deny). Exit 0 with JSON; `{}` decides
 *   nothing.
 * - Gemini CLI (docs/hooks/reference.md of google-gemini/gemini-cli; 0.61.0 read): `BeforeTool`, its own tool names
 *   (`run_shell_command`, `read_file`, …); top-level `decision` deny (with `reason`, sent to the model) or ask (forces
 *   the confirmation; `systemMessage` shown with it). Its BeforeTool cannot approve a call: an allow decides nothing.
 * - Codex (developers.openai.com/codex/hooks; 0.171.0 read): Claude Code's wire format, `tool_name` `Bash` for shell
 *   calls, `apply_patch` (the patch in `tool_input.command`) for edits, `mcp__server__tool`. Its PreToolUse rejects
 *   `ask` and `allow` as unsupported and then runs the call, so an ask reaches Codex as a deny that says so; an allow
 *   can only be given at PermissionRequest.
 */
import path from 'node:path';

export const HOOK_HOSTS = ['claude', 'gemini', 'codex'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

/** The two moments a host asks: before the call (may deny or ask), and when it is about to prompt (may allow or deny). */
export type HookEvent = 'PreToolUse' | 'PermissionRequest';

/** One call in toolgate's terms: a tool name the engine knows (or an MCP name), its input, the directory it runs in. */
export interface HookCall {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly cwd: string;
}

export interface HookRequest {
  readonly host: HookHost;
  readonly event: HookEvent;
  /** The host's own tool name, as it sent it. */
  readonly hostTool: string;
  /** The host's input, as it sent it (for the log). */
  readonly hostInput: Record<string, unknown>;
  /**
   * What the host's call does, in toolgate's tools: one call mostly, several for a patch that touches several files;
   * empty for a host tool toolgate has no counterpart for (then `opaque` says whether it names a path or a command).
   */
  readonly calls: readonly HookCall[];
  /** A host tool with no counterpart whose input carries a command, path or URL: toolgate cannot judge it, so it asks. */
  readonly opaque?: string;
  readonly cwd: string;
  /** The host's permission mode, as it sent it (Claude Code: default, acceptEdits, plan, auto, dontAsk, bypassPermissions). */
  readonly mode?: string;
  readonly sessionId?: string;
  readonly toolUseId?: string;
}

/** What toolgate answers: a decision, or nothing (the host decides as it would without the hook). */
export type HookVerdictKind = 'allow' | 'deny' | 'ask' | 'none';
export interface HookAnswer {
  readonly kind: HookVerdictKind;
  /** Short: the model reads a deny's reason (the host caps hook output at 10,000 characters). */
  readonly reason: string;
}

export class HookProtocolError extends Error {}

const EVENT_OF: Readonly<Record<string, HookEvent>> = { PreToolUse: 'PreToolUse', PermissionRequest: 'PermissionRequest', BeforeTool: 'PreToolUse' };

/** Input fields that name something a call acts on: a host tool toolgate does not know that has one is never waved through. */
const ACTING_FIELDS = ['command', 'cmd', 'script', 'code', 'file_path', 'path', 'paths', 'notebook_path', 'dir_path', 'directory', 'url', 'urls', 'uri'];

/** The host a request came from when the command line does not say: Gemini's event name is its own. */
export function detectHost(raw: Record<string, unknown>, given: HookHost | undefined): HookHost {
  if (given !== undefined) return given;
  return raw.hook_event_name === 'BeforeTool' ? 'gemini' : 'claude';
}

/** The host's JSON (already parsed) → the request; throws HookProtocolError for anything that is not a tool event. */
export function parseHookRequest(raw: unknown, given: HookHost | undefined, defaultCwd: string): HookRequest {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new HookProtocolError('the hook input is not a JSON object');
  const r = raw as Record<string, unknown>;
  const host = detectHost(r, given);
  const event = typeof r.hook_event_name === 'string' ? EVENT_OF[r.hook_event_name] : undefined;
  if (event === undefined) throw new HookProtocolError(`not a tool event toolgate answers: ${JSON.stringify(r.hook_event_name ?? null).slice(0, 80)}`);
  if (typeof r.tool_name !== 'string' || r.tool_name === '') throw new HookProtocolError('"tool_name" must be a non-empty string');
  const input = r.tool_input ?? {};
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new HookProtocolError('"tool_input" must be a JSON object');
  const cwdField = r.cwd;
  if (cwdField !== undefined && (typeof cwdField !== 'string' || !path.isAbsolute(cwdField))) throw new HookProtocolError('"cwd" must be an absolute path');
  const cwd = path.resolve(cwdField ?? defaultCwd);
  const hostInput = input as Record<string, unknown>;
  const mapped = host === 'gemini' ? geminiCalls(r.tool_name, hostInput, cwd) : host === 'codex' ? codexCalls(r.tool_name, hostInput, cwd) : { calls: [{ tool: r.tool_name, input: hostInput, cwd }] };
  return {
    host,
    event,
    hostTool: r.tool_name,
    hostInput,
    ...mapped,
    cwd,
    ...(typeof r.permission_mode === 'string' ? { mode: r.permission_mode } : {}),
    ...(typeof r.session_id === 'string' ? { sessionId: r.session_id } : {}),
    ...(typeof r.tool_use_id === 'string' ? { toolUseId: r.tool_use_id } : {}),
  };
}

type Mapped = { calls: HookCall[]; opaque?: string };

/** A tool with no counterpart: nothing to judge, unless its input names what it acts on. */
function unmapped(tool: string, input: Record<string, unknown>): Mapped {
  const field = ACTING_FIELDS.find((f) => input[f] !== undefined && input[f] !== null && input[f] !== '');
  return field === undefined ? { calls: [] } : { calls: [], opaque: `${tool} is not a tool toolgate knows, and its input names a ${field}` };
}

const abs = (p: unknown, cwd: string): string | undefined => (typeof p === 'string' && p !== '' ? path.resolve(cwd, p) : undefined);

/** Gemini CLI's built-in tools (packages/core tool names and parameters, 0.61.0) as Claude Code's. */
function geminiCalls(tool: string, input: Record<string, unknown>, cwd: string): Mapped {
  if (tool.startsWith('mcp__')) return { calls: [{ tool, input, cwd }] };
  const dir = abs(input.dir_path, cwd);
  switch (tool) {
    case 'run_shell_command':
      if (typeof input.command !== 'string') return unmapped(tool, input);
      return { calls: [{ tool: 'Bash', input: { command: input.command }, cwd: dir ?? cwd }] };
    case 'read_file': {
      const file = abs(input.file_path ?? input.absolute_path, cwd);
      return file === undefined ? unmapped(tool, input) : { calls: [{ tool: 'Read', input: { file_path: file }, cwd }] };
    }
    case 'write_file': {
      const file = abs(input.file_path, cwd);
      return file === undefined ? unmapped(tool, input) : { calls: [{ tool: 'Write', input: { file_path: file, content: typeof input.content === 'string' ? input.content : '' }, cwd }] };
    }
    case 'replace': {
      const file = abs(input.file_path, cwd);
      if (file === undefined) return unmapped(tool, input);
      return { calls: [{ tool: 'Edit', input: { file_path: file, old_string: str(input.old_string), new_string: str(input.new_string) }, cwd }] };
    }
    case 'glob':
      return { calls: [{ tool: 'Glob', input: { pattern: str(input.pattern), ...(dir !== undefined ? { path: dir } : {}) }, cwd }] };
    case 'grep_search':
    case 'search_file_content':
      return { calls: [{ tool: 'Grep', input: { pattern: str(input.pattern), ...(dir !== undefined ? { path: dir } : {}) }, cwd }] };
    case 'list_directory':
      return { calls: [{ tool: 'Glob', input: { pattern: '*', path: dir ?? cwd }, cwd }] };
    case 'read_many_files': {
      const include = Array.isArray(input.include) ? input.include.filter((x): x is string => typeof x === 'string') : [];
      if (include.length === 0) return unmapped(tool, { paths: input.include });
      return { calls: include.map((pattern) => ({ tool: 'Glob', input: { pattern }, cwd })) };
    }
    case 'web_fetch': {
      // Gemini's web_fetch takes a prompt that holds the URLs; each is fetched.
      const urls = typeof input.prompt === 'string' ? (input.prompt.match(/\bhttps?:\/\/[^\s<>"'`]+/g) ?? []) : [];
      if (urls.length === 0) return { calls: [], opaque: 'web_fetch names no URL toolgate can read' };
      return { calls: urls.map((url) => ({ tool: 'WebFetch', input: { url, prompt: '' }, cwd })) };
    }
    case 'google_web_search':
      return { calls: [{ tool: 'WebSearch', input: { query: str(input.query) }, cwd }] };
    default:
      return unmapped(tool, input);
  }
}

/** Codex's hook tool names: `Bash` for every shell call, `apply_patch` for edits, `mcp__server__tool`. */
function codexCalls(tool: string, input: Record<string, unknown>, cwd: string): Mapped {
  if (tool.startsWith('mcp__')) return { calls: [{ tool, input, cwd }] };
  if (tool === 'Bash') {
    const dir = abs(input.workdir, cwd) ?? cwd;
    const c = input.command;
    if (typeof c === 'string') return { calls: [{ tool: 'Bash', input: { command: c }, cwd: dir }] };
    // An argv array (Codex's exec form): each word quoted, so the shell reads back exactly these words.
    if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) return { calls: [{ tool: 'Bash', input: { command: c.map(singleQuote).join(' ') }, cwd: dir }] };
    return unmapped(tool, input);
  }
  if (tool === 'apply_patch') {
    const patch = typeof input.command === 'string' ? input.command : typeof input.input === 'string' ? input.input : undefined;
    const files = patch === undefined ? [] : patchFiles(patch);
    if (files.length === 0) return { calls: [], opaque: 'apply_patch names no file toolgate can read' };
    return { calls: files.map((f) => ({ tool: f.added ? 'Write' : 'Edit', input: { file_path: path.resolve(cwd, f.file), ...(f.added ? { content: '' } : { old_string: '', new_string: '' }) }, cwd })) };
  }
  return unmapped(tool, input);
}

/** The files a patch in Codex's apply_patch format touches (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`). */
export function patchFiles(patch: string): { file: string; added: boolean }[] {
  const out: { file: string; added: boolean }[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (m) out.push({ file: m[2]!.trim(), added: m[1] === 'Add File' || m[1] === 'Move to' });
  }
  return out;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const singleQuote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The host's JSON for an answer (always printed with exit 0: every host reads JSON on 0). */
export function formatHookAnswer(host: HookHost, event: HookEvent, answer: HookAnswer): Record<string, unknown> {
  const reason = capReason(answer.reason);
  if (host === 'gemini') {
    if (answer.kind === 'deny') return { decision: 'deny', reason };
    if (answer.kind === 'ask') return { decision: 'ask', reason, systemMessage: reason };
    return {};
  }
  if (event === 'PermissionRequest') {
    if (answer.kind === 'deny') return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } } };
    if (answer.kind === 'allow') return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
    // No decision: the prompt the host was about to show is shown.
    return {};
  }
  if (host === 'codex') {
    // Codex's PreToolUse runs a call whose hook asked (unsupported), and cannot be told allow.
    if (answer.kind === 'deny') return preToolUse('deny', reason);
    if (answer.kind === 'ask') return preToolUse('deny', `${reason} (toolgate would ask a person here; Codex's PreToolUse cannot ask, so it is refused)`);
    return {};
  }
  if (answer.kind === 'none') return {};
  return preToolUse(answer.kind, reason);
}

function preToolUse(decision: 'allow' | 'deny' | 'ask', reason: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: capReason(reason) } };
}

/** The fail-closed answer when the request could not be read: the host asks a person (Codex: refuses). */
export function failClosedOutput(host: HookHost, event: HookEvent | undefined, reason: string): Record<string, unknown> {
  return formatHookAnswer(host, event ?? 'PreToolUse', { kind: event === 'PermissionRequest' ? 'none' : 'ask', reason: `toolgate could not judge this call: ${reason}` });
}

const MAX_REASON = 2000;
function capReason(reason: string): string {
  return reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 3)}...`;
}
