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
import fs from 'node:fs';
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
  /**
   * Set when `cwd` is a directory the host's model chose (Codex `workdir`, Gemini `dir_path`): the judge takes it as a
   * path the call works in — asked about outside the working directories — never as a working directory or the project.
   */
  readonly modelDir?: string;
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

/**
 * Input fields that name something a call acts on (a command, code, a path, a URL): the one list both the adapters and
 * the judge use. A tool toolgate does not know that has one — at any depth of its input — is never waved through.
 */
export const ACTING_FIELDS: readonly string[] = [
  'command', 'commands', 'cmd', 'script', 'code', 'shell', 'args', 'argv', 'file_path', 'filePath', 'path', 'paths', 'notebook_path',
  'dir_path', 'directory', 'workdir', 'url', 'urls', 'uri',
];
/** Acting fields that carry something to run (toolgate analyses it only for its own shell tools). */
export const CODE_FIELDS: readonly string[] = ['command', 'commands', 'cmd', 'script', 'code', 'shell', 'args', 'argv'];

/**
 * The first acting field in `input` or anywhere inside it (a batch tool's nested calls), as a dotted path; undefined
 * when there is none. Bounded: past the depth or node budget the input counts as acting (unsure: a person decides).
 */
export function actingField(input: unknown, fields: readonly string[] = ACTING_FIELDS): string | undefined {
  let budget = 10_000;
  const walk = (v: unknown, at: string, depth: number): string | undefined => {
    if (--budget < 0 || depth > 16) return at === '' ? 'input' : at;
    if (v === null || typeof v !== 'object') return undefined;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const hit = walk(v[i], `${at}[${i}]`, depth + 1);
        if (hit !== undefined) return hit;
      }
      return undefined;
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (fields.includes(k) && x !== undefined && x !== null && x !== '') return at === '' ? k : `${at}.${k}`;
      const hit = walk(x, at === '' ? k : `${at}.${k}`, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  };
  return walk(input, '', 0);
}

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
  const field = actingField(input);
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
      return { calls: [{ tool: 'Bash', input: { command: input.command }, cwd: dir ?? cwd, ...(dir !== undefined ? { modelDir: dir } : {}) }] };
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
    case 'search_file_content': {
      // Gemini's search prints the matching lines, limited to the files `include` names.
      const include = typeof input.include === 'string' && input.include !== '' ? { glob: input.include } : {};
      return { calls: [{ tool: 'Grep', input: { pattern: str(input.pattern), output_mode: 'content', ...include, ...(dir !== undefined ? { path: dir } : {}) }, cwd }] };
    }
    case 'list_directory':
      return { calls: [{ tool: 'Glob', input: { pattern: '*', path: dir ?? cwd }, cwd }] };
    case 'read_many_files':
      return readManyFiles(tool, input, cwd);
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

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Gemini's read_many_files reads the contents of every file its `paths`/`include` entries name (literal paths,
 * folders, globs). A literal file is a Read; a folder or a glob is a search that prints contents (a Grep of every line
 * limited to it), so a denied file it names is denied and one it could reach is asked about. `exclude` only narrows.
 */
function readManyFiles(tool: string, input: Record<string, unknown>, cwd: string): Mapped {
  const entries: unknown[] = [...(Array.isArray(input.paths) ? input.paths : []), ...(Array.isArray(input.include) ? input.include : [])];
  if (entries.length === 0) return unmapped(tool, input);
  if (!entries.every((x) => typeof x === 'string' && x !== '')) return { calls: [], opaque: `${tool} names a path that is not a string` };
  const calls: HookCall[] = [];
  for (const entry of entries as string[]) {
    if (GLOB_CHARS.test(entry)) {
      calls.push({ tool: 'Grep', input: { pattern: '.', output_mode: 'content', glob: entry }, cwd });
      continue;
    }
    const file = path.resolve(cwd, entry);
    calls.push(isDirectory(file) ? { tool: 'Grep', input: { pattern: '.', output_mode: 'content', path: file }, cwd } : { tool: 'Read', input: { file_path: file }, cwd });
  }
  return { calls };
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Codex's hook tool names: `Bash` for every shell call, `apply_patch` for edits, `mcp__server__tool`. */
function codexCalls(tool: string, input: Record<string, unknown>, cwd: string): Mapped {
  if (tool.startsWith('mcp__')) return { calls: [{ tool, input, cwd }] };
  if (tool === 'Bash') {
    const workdir = abs(input.workdir, cwd);
    const where = { cwd: workdir ?? cwd, ...(workdir !== undefined ? { modelDir: workdir } : {}) };
    const c = input.command;
    if (typeof c === 'string') return { calls: [{ tool: 'Bash', input: { command: c }, ...where }] };
    // An argv array (Codex's exec form): each word quoted, so the shell reads back exactly these words.
    if (Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === 'string')) return { calls: [{ tool: 'Bash', input: { command: c.map(singleQuote).join(' ') }, ...where }] };
    return unmapped(tool, input);
  }
  if (tool === 'apply_patch') {
    const patch = typeof input.command === 'string' ? input.command : typeof input.input === 'string' ? input.input : undefined;
    const files = patch === undefined ? [] : patchFiles(patch);
    if (files === undefined) return { calls: [], opaque: 'apply_patch has a file header toolgate cannot read' };
    if (files.length === 0) return { calls: [], opaque: 'apply_patch names no file toolgate can read' };
    return { calls: files.map((f) => ({ tool: f.added ? 'Write' : 'Edit', input: { file_path: path.resolve(cwd, f.file), ...(f.added ? { content: '' } : { old_string: '', new_string: '' }) }, cwd })) };
  }
  return unmapped(tool, input);
}

/**
 * The files a patch in Codex's apply_patch format touches (`*** Add File:`, `*** Update File:`, `*** Delete File:`,
 * `*** Move to:`). Codex trims each line before it looks for a header, so this does too; a line that starts like a
 * header but does not parse as one (other spacing or case, no path) makes the patch unreadable: undefined (ask).
 */
export function patchFiles(patch: string): { file: string; added: boolean }[] | undefined {
  const out: { file: string; added: boolean }[] = [];
  for (const raw of patch.split(/\r?\n|\r/)) {
    const line = raw.trim();
    const m = /^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/.exec(line);
    if (m) out.push({ file: m[2]!.trim(), added: m[1] === 'Add File' || m[1] === 'Move to' });
    else if (/^\*+\s*(?:(?:add|update|delete)\s*file|move\s*to)\b/i.test(line)) return undefined;
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
