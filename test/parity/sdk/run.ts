/**
 * Runs one parity scenario through a `query()` — toolgate's or the real Agent SDK's — against a fresh scripted
 * Messages API server, in a temp project, and reduces what happened to normalized values: the messages in order (with
 * their texts and tool_result contents, and the moments hooks ran), the result's fields, the error the stream ended
 * with, what went to stderr, the files after, and what the scenario asks to keep of the requests. Ids, times, costs,
 * usage, session ids and temp paths are normalized away, so two runs of the same SDK record the same values.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse } from '../../../src/testing/index.js';

type AnyOptions = Record<string, unknown>;
export type QueryFn = (params: { prompt: unknown; options?: AnyOptions }) => AsyncIterable<Record<string, unknown>>;
export interface SdkModule {
  readonly query: QueryFn;
  readonly tool: unknown;
  readonly createSdkMcpServer: unknown;
}
type Turn = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

export interface ParityContext {
  readonly dir: string;
  readonly home: string;
  /** Puts a marker into the recorded sequence (a hook callback saying when it ran). */
  mark(what: string): void;
}

export interface ParityRun {
  readonly prompt: string;
  readonly turns: (ctx: ParityContext) => Turn[];
  readonly options?: (ctx: ParityContext) => AnyOptions;
  /**
   * Query methods called before the prompt goes (the prompt is then a one-message stream, as the SDK's control
   * methods want): what it returns (or the error it throws) joins the sequence as a `control` entry.
   */
  readonly control?: (query: ControlQuery, ctx: ParityContext) => Promise<unknown>;
}

/** The `Query` methods a scenario's control step may call (either SDK's). */
export type ControlQuery = Record<string, (...args: unknown[]) => Promise<unknown>>;

export interface ParityScenario extends ParityRun {
  readonly name: string;
  /** Why it is here: what the real SDK does that the face must do too. */
  readonly about: string;
  readonly setup?: (dir: string) => void;
  /** A second session that resumes the first (its session id), in the same project. */
  readonly resume?: ParityRun;
  /** `resumeSessionAt` for the resume: the uuid of one of the messages the first session yielded. */
  readonly resumeAt?: (messages: readonly Record<string, unknown>[]) => string | undefined;
  /** What to keep of the conversation's requests (normalized), e.g. the effort a request carried. */
  readonly requests?: (requests: readonly RecordedRequest[]) => unknown;
}

/** What a scenario's run came to, normalized: the recordings hold these, the test compares them. */
export interface ParityValues {
  readonly sessions: readonly SessionValues[];
  readonly files: Readonly<Record<string, string>>;
  readonly requests?: unknown;
}

export interface SessionValues {
  readonly sequence: readonly unknown[];
  readonly result?: unknown;
  readonly throws?: string;
  readonly stderrLines: number;
}

const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });

/** A title or other side request of the Agent SDK: not part of the conversation. */
function isSideRequest(request: RecordedRequest): boolean {
  const first = JSON.stringify(request.body?.messages?.[0]?.content ?? '');
  return /Write the title|sentence-case title/i.test(first) || !Array.isArray(request.body?.messages);
}

let running: SdkModule | undefined;

/** The SDK the scenario being run goes through (for a scenario's in-process MCP server). */
export function currentSdk(): { tool: (...args: unknown[]) => unknown; createSdkMcpServer: (options: unknown) => unknown } {
  if (!running) throw new Error('no parity scenario is running');
  return running as never;
}

export async function runParityScenario(sdk: SdkModule, scenario: ParityScenario): Promise<ParityValues> {
  running = sdk;
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'parity-sdk-')));
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'parity-sdk-home-')));
  const normalize = normalizer([dir, home]);
  try {
    scenario.setup?.(dir);
    const sessions: SessionValues[] = [];
    const conversation: RecordedRequest[] = [];
    const first = await runOne(sdk, scenario, { dir, home }, undefined, conversation);
    sessions.push(first.values);
    const at = scenario.resumeAt?.(first.messages);
    if (scenario.resume && first.sessionId) sessions.push((await runOne(sdk, scenario.resume, { dir, home }, { id: first.sessionId, ...(at ? { at } : {}) }, conversation)).values);
    return normalize({
      sessions,
      files: filesOf(dir),
      ...(scenario.requests ? { requests: scenario.requests(conversation) } : {}),
    }) as ParityValues;
  } finally {
    for (const d of [dir, home]) rmSync(d, { recursive: true, force: true });
  }
}

async function runOne(
  sdk: SdkModule,
  run: ParityRun,
  where: { dir: string; home: string },
  resume: { id: string; at?: string } | undefined,
  conversation: RecordedRequest[],
): Promise<{ values: SessionValues; sessionId?: string; messages: Record<string, unknown>[] }> {
  const sequence: unknown[] = [];
  const messages: Record<string, unknown>[] = [];
  const ctx: ParityContext = { ...where, mark: (what) => sequence.push({ kind: `mark:${what}` }) };
  const main = run.turns(ctx);
  let next = 0;
  const serve = (request: RecordedRequest): ScriptedResponse => {
    if (isSideRequest(request)) return text('A title');
    const turn = main[next] ?? text('(no turn left)');
    const response = typeof turn === 'function' ? turn(request) : turn;
    if (!response.errors?.[request.attempt]) next++;
    return response;
  };
  const server = await startScriptedServer(Array.from({ length: 50 }, () => serve));
  let stderr = '';
  let result: unknown;
  let throws: string | undefined;
  let sessionId: string | undefined;
  try {
    const given = run.options?.(ctx) ?? {};
    const options = {
      model: 'claude-sonnet-4-6',
      ...given,
      cwd: where.dir,
      ...(resume ? { resume: resume.id, ...(resume.at ? { resumeSessionAt: resume.at } : {}) } : {}),
      stderr: (data: string) => (stderr += data),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: where.home,
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'test',
        CLAUDE_CONFIG_DIR: path.join(where.home, '.claude'),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        XDG_STATE_HOME: path.join(where.home, '.state'),
        ...((given.env as Record<string, string>) ?? {}),
      },
    };
    const input = run.control ? oneMessage(run.prompt) : undefined;
    const q = sdk.query({ prompt: input?.stream ?? run.prompt, options });
    if (run.control && input) {
      void run
        .control(q as unknown as ControlQuery, ctx)
        .then((value) => sequence.push({ kind: 'control', value: value ?? null }), (e: unknown) => sequence.push({ kind: 'control', throws: e instanceof Error ? e.message : String(e) }))
        .finally(() => input.send());
    }
    for await (const message of q) {
      messages.push(message);
      if (message.type === 'result') input?.end();
      sessionId ??= typeof message.session_id === 'string' ? message.session_id : undefined;
      if (message.type === 'result') result = resultValues(message);
      const value = messageValues(message);
      if (value !== undefined) sequence.push(value);
    }
  } catch (e) {
    throws = (e instanceof Error ? e.message : String(e)).split(':')[0];
  } finally {
    await server.close();
    conversation.push(...server.messageRequests.filter((r) => !isSideRequest(r)));
  }
  const stderrLines = stderr.split('\n').filter((l) => /warn|ignor|note/i.test(l)).length;
  return { values: { sequence, ...(result !== undefined ? { result } : {}), ...(throws !== undefined ? { throws } : {}), stderrLines }, ...(sessionId ? { sessionId } : {}), messages };
}

/** The prompt as a stream of one user message: sent when `send()` is called, the stream ended by `end()`. */
function oneMessage(prompt: string): { stream: AsyncIterable<unknown>; send(): void; end(): void } {
  let send = () => {};
  let end = () => {};
  const sent = new Promise<void>((r) => (send = r));
  const ended = new Promise<void>((r) => (end = r));
  return {
    stream: (async function* () {
      await sent;
      yield { type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null, session_id: '' };
      await ended;
    })(),
    send: () => send(),
    end: () => end(),
  };
}

/** Message kinds left out of the values: their shapes are test/agent-sdk-shapes.test.ts's, their values are timings. */
const SKIPPED = new Set(['stream_event', 'system/informational', 'system/status', 'system/api_retry', 'rate_limit_event', 'system/hook_started', 'system/hook_response']);

function messageValues(message: Record<string, unknown>): unknown {
  const kind = `${String(message.type)}${message.subtype ? `/${String(message.subtype)}` : ''}`;
  if (SKIPPED.has(kind)) return undefined;
  const inner = message.message as { content?: unknown } | undefined;
  if (message.type === 'assistant' || message.type === 'user') {
    const content = inner?.content;
    return {
      kind,
      ...(message.parent_tool_use_id ? { sub: true } : {}),
      content: typeof content === 'string' ? content : Array.isArray(content) ? (content as Record<string, unknown>[]).map(blockValues) : content,
    };
  }
  if (kind === 'system/permission_denied') return { kind, tool: message.tool_name };
  return { kind };
}

function blockValues(block: Record<string, unknown>): unknown {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'tool_use':
      return { tool_use: block.name, id: block.id, input: block.input };
    case 'tool_result':
      return { tool_result: block.tool_use_id, content: resultText(block.content), ...(block.is_error ? { is_error: true } : {}) };
    default:
      return { type: block.type };
  }
}

function resultText(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return (content as Record<string, unknown>[]).map((b) => (b.type === 'text' ? b.text : { type: b.type }));
}

function resultValues(m: Record<string, unknown>): unknown {
  const denials = (m.permission_denials as { tool_name: string; tool_use_id: string; tool_input: unknown }[] | undefined) ?? [];
  return {
    subtype: m.subtype,
    is_error: m.is_error,
    ...('result' in m ? { result: m.result } : {}),
    num_turns: m.num_turns,
    stop_reason: m.stop_reason,
    permission_denials: denials.map((d) => ({ tool_name: d.tool_name, tool_use_id: d.tool_use_id, tool_input: d.tool_input })),
    ...(Array.isArray(m.errors) && m.errors.length > 0 ? { errors: m.errors } : {}),
    ...('structured_output' in m ? { structured_output: m.structured_output } : {}),
  };
}

/** Files of the project after the run (what the session wrote), by relative path; Claude Code's own folder left out. */
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const rel = path.relative(dir, full);
      if (rel === '.claude' || rel === '.git') continue;
      if (statSync(full).isDirectory()) walk(full);
      else files[rel] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** Temp paths become `<cwd>`/`<home>`, tool_use ids `toolu_N` in order of appearance. */
function normalizer(roots: readonly string[]): (value: unknown) => unknown {
  const ids = new Map<string, string>();
  const names = ['<cwd>', '<home>'];
  const string = (s: string): string => {
    let out = s;
    roots.forEach((root, i) => (out = out.split(root).join(names[i]!)));
    return out.replace(/toolu_[A-Za-z0-9_]+/g, (id) => {
      if (!ids.has(id)) ids.set(id, `toolu_${ids.size + 1}`);
      return ids.get(id)!;
    });
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return string(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [string(k), walk(v)]));
    return value;
  };
  return walk;
}

/** A file of the project, written before the run. */
export function put(dir: string, rel: string, content: string): void {
  writeFileSync(path.join(dir, rel), content);
}
