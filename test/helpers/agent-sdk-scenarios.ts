/**
 * Scripted sessions that run the same way through `toolgate/agent-sdk` and through the real Claude Agent SDK (when it
 * is installed outside the repository): the same prompt, options and model turns against `toolgate/testing`'s
 * server. Requests that are not the conversation's (the Agent SDK's title request) get an answer of their own, so
 * both consume the scripted turns identically. `shapeOf` reduces a message stream to what must match: types,
 * subtypes, field names, nesting — never values such as ids, timings or text.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startScriptedServer, type RecordedRequest, type ScriptedResponse } from '../../src/testing/index.js';

type AnyOptions = Record<string, unknown>;
type QueryFn = (params: { prompt: unknown; options?: AnyOptions }) => AsyncIterable<Record<string, unknown>>;
type Turn = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

export interface ScenarioContext {
  readonly dir: string;
  readonly home: string;
}

export interface Scenario {
  readonly name: string;
  readonly prompt: string | ((ctx: ScenarioContext) => AsyncIterable<unknown>);
  readonly turns: (ctx: ScenarioContext) => Turn[];
  readonly options?: (ctx: ScenarioContext, sdk: { tool: unknown; createSdkMcpServer: unknown }) => AnyOptions;
  readonly setup?: (dir: string) => void;
}

export interface ScenarioRun {
  readonly messages: Record<string, unknown>[];
  readonly error?: string;
  readonly requests: readonly RecordedRequest[];
  readonly ctx: ScenarioContext;
}

const M = 'claude-sonnet-4-6';
const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const bash = (command: string): ScriptedResponse => ({ content: [{ type: 'tool_use', name: 'Bash', input: { command, description: command } }] });
const userMessage = (content: string) => ({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' });
const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
const writeCall = (ctx: ScenarioContext): ScriptedResponse => ({ content: [{ type: 'tool_use', name: 'Write', input: { file_path: path.join(ctx.dir, 'x.txt'), content: 'x' } }] });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'read',
    prompt: 'read a.txt',
    setup: (dir) => writeFileSync(path.join(dir, 'a.txt'), 'line1\nline2\n'),
    turns: (ctx) => [{ content: [{ type: 'text', text: 'I will read it.' }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(ctx.dir, 'a.txt') } }] }, text('Done reading.')],
    options: () => ({ model: M, allowedTools: ['Read'] }),
  },
  {
    name: 'read-partial',
    prompt: 'read a.txt',
    setup: (dir) => writeFileSync(path.join(dir, 'a.txt'), 'line1\nline2\n'),
    turns: (ctx) => [{ content: [{ type: 'text', text: 'I will read it.', chunks: 3 }, { type: 'tool_use', name: 'Read', input: { file_path: path.join(ctx.dir, 'a.txt') }, chunks: 3 }] }, { content: [{ type: 'text', text: 'Done reading.', chunks: 3 }] }],
    options: () => ({ model: M, allowedTools: ['Read'], includePartialMessages: true }),
  },
  { name: 'parallel', prompt: 'go', turns: () => [{ content: [...bash('echo a').content!, ...bash('echo b').content!] }, text('x')], options: () => ({ model: M, allowedTools: ['Bash'] }) },
  { name: 'max-turns', prompt: 'loop', turns: () => [bash('echo hi'), bash('echo hi'), bash('echo hi')], options: () => ({ model: M, maxTurns: 2, allowedTools: ['Bash(echo hi)'] }) },
  { name: 'deny-no-prompt', prompt: 'write', turns: (ctx) => [writeCall(ctx), text('ok')], options: () => ({ model: M }) },
  { name: 'deny-can-use-tool', prompt: 'write', turns: (ctx) => [writeCall(ctx), text('ok')], options: () => ({ model: M, canUseTool: async () => ({ behavior: 'deny', message: 'no writes today' }) }) },
  {
    name: 'allow-can-use-tool',
    prompt: 'write',
    turns: (ctx) => [writeCall(ctx), text('ok')],
    options: () => ({ model: M, canUseTool: async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow', updatedInput: { ...input, content: 'changed' } }) }),
  },
  {
    name: 'deny-hook',
    prompt: 'write',
    turns: (ctx) => [writeCall(ctx), text('ok')],
    options: () => ({
      model: M,
      hooks: { PreToolUse: [{ matcher: 'Write', hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hook says no' } })] }] },
    }),
  },
  { name: 'deny-interrupt', prompt: 'write', turns: (ctx) => [writeCall(ctx), text('ok')], options: () => ({ model: M, canUseTool: async () => ({ behavior: 'deny', message: 'stop now', interrupt: true }) }) },
  { name: 'structured', prompt: 'what is 6*7', turns: () => [{ content: [{ type: 'tool_use', name: 'StructuredOutput', input: { answer: 42 } }] }], options: () => ({ model: M, outputFormat: { type: 'json_schema', schema } }) },
  {
    name: 'structured-retry',
    prompt: 'what is 6*7',
    turns: () => [text('it is 42'), { content: [{ type: 'tool_use', name: 'StructuredOutput', input: { answer: 'x' } }] }, { content: [{ type: 'tool_use', name: 'StructuredOutput', input: { answer: 42 } }] }],
    options: () => ({ model: M, outputFormat: { type: 'json_schema', schema } }),
  },
  { name: 'structured-never', prompt: 'what is 6*7', turns: () => [text('no'), text('no')], options: () => ({ model: M, outputFormat: { type: 'json_schema', schema } }) },
  {
    name: 'subagent',
    prompt: 'delegate',
    turns: () => [
      { content: [{ type: 'text', text: 'delegating' }, { type: 'tool_use', name: 'Agent', input: { description: 'say hi', prompt: 'run echo hi', subagent_type: 'helper', run_in_background: false } }] },
      { content: [{ type: 'text', text: 'sub: running' }, ...bash('echo hi').content!] },
      text('sub: said hi'),
      text('all done'),
    ],
    options: () => ({ model: M, agents: { helper: { description: 'Helps', prompt: 'You help.', tools: ['Bash'] } }, allowedTools: ['Bash'] }),
  },
  {
    name: 'sdk-mcp',
    prompt: 'add',
    turns: () => [{ content: [{ type: 'tool_use', name: 'mcp__calc__add', input: { a: 2, b: 3 } }] }, text('5')],
    options: (_ctx, sdk) => ({ model: M, mcpServers: { calc: calculator(sdk) }, allowedTools: ['mcp__calc__add'], env: { ENABLE_TOOL_SEARCH: 'false' } }),
  },
  { name: 'retry', prompt: 'hi', turns: () => [{ ...text('after retry'), errors: [{ status: 529 }] }], options: () => ({ model: M }) },
  { name: 'api-error', prompt: 'hi', turns: () => [{ ...text('never'), errors: Array.from({ length: 12 }, () => ({ status: 400, message: 'bad thing' })) }], options: () => ({ model: M }) },
  {
    name: 'budget',
    prompt: 'spend',
    turns: () => [{ ...bash('echo hi'), usage: { input_tokens: 100_000, output_tokens: 1_000 } }, { ...bash('echo hi'), usage: { input_tokens: 100_000, output_tokens: 1_000 } }, text('x')],
    options: () => ({ model: M, maxBudgetUsd: 0.5, allowedTools: ['Bash'] }),
  },
  {
    name: 'hook-events',
    prompt: 'hooks',
    turns: () => [bash('echo hi'), text('x')],
    options: () => ({ model: M, includeHookEvents: true, allowedTools: ['Bash'], settings: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre-out' }] }], Stop: [{ hooks: [{ type: 'command', command: 'echo stopped' }] }] } } }),
  },
  {
    // A single prompt's session waits for its background command; its end is a turn of its own. The command sleeps
    // long enough for the first turn to end before it does (the order would differ otherwise, in both SDKs) — 3 s:
    // the first turn of a CLI started through tsx on a loaded machine may take more than a second.
    name: 'background',
    prompt: 'bg',
    turns: () => [{ content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 3; echo bgdone', description: 'bg', run_in_background: true } }] }, text('started it'), text('saw it finish')],
    options: () => ({ model: M, allowedTools: ['Bash'] }),
  },
  {
    name: 'streaming-two-turns',
    prompt: () =>
      (async function* () {
        yield userMessage('one');
        await new Promise((r) => setTimeout(r, 300));
        yield userMessage('two');
      })(),
    turns: () => [text('answer one'), text('answer two')],
    options: () => ({ model: M }),
  },
];

function calculator(sdk: { tool: unknown; createSdkMcpServer: unknown }): unknown {
  const tool = sdk.tool as (...a: unknown[]) => unknown;
  const create = sdk.createSdkMcpServer as (o: unknown) => unknown;
  // A plain zod shape, built from the zod that each SDK's own MCP server understands (zod 4 in both).
  return import('zod').then(({ z }) =>
    create({ name: 'calc', version: '1.0.0', tools: [tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }))] }),
  );
}

/** A title or other side request of the Agent SDK: not part of the conversation. */
export function isSideRequest(request: RecordedRequest): boolean {
  const first = JSON.stringify(request.body?.messages?.[0]?.content ?? '');
  return /Write the title|sentence-case title/i.test(first);
}

/** Runs one scenario through a `query()` (toolgate's or the real Agent SDK's) against a fresh scripted server. */
export async function runScenario(
  sdk: { query: QueryFn; tool: unknown; createSdkMcpServer: unknown },
  scenario: Scenario,
  { env = {}, keepFiles = false }: { env?: Record<string, string>; keepFiles?: boolean } = {},
): Promise<ScenarioRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-scenario-'));
  const home = mkdtempSync(path.join(os.tmpdir(), 'agent-sdk-home-'));
  scenario.setup?.(dir);
  const ctx = { dir, home };
  const main = scenario.turns(ctx);
  let next = 0;
  const serve = (request: RecordedRequest): ScriptedResponse => {
    if (isSideRequest(request)) return text('A title');
    const turn = main[next] ?? text('(no turn left)');
    const response = typeof turn === 'function' ? turn(request) : turn;
    if (!response.errors?.[request.attempt]) next++;
    return response;
  };
  const server = await startScriptedServer(Array.from({ length: 100 }, () => serve));
  const messages: Record<string, unknown>[] = [];
  let error: string | undefined;
  try {
    const given = scenario.options?.(ctx, sdk) ?? {};
    const mcpServers = given.mcpServers as Record<string, unknown> | undefined;
    if (mcpServers) for (const [k, v] of Object.entries(mcpServers)) mcpServers[k] = await v;
    const options = {
      ...given,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test', CLAUDE_CONFIG_DIR: path.join(home, '.claude'), ...env, ...((given.env as Record<string, string>) ?? {}) },
    };
    const prompt = typeof scenario.prompt === 'function' ? scenario.prompt(ctx) : scenario.prompt;
    for await (const message of sdk.query({ prompt, options })) messages.push(message);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    await server.close();
    if (!keepFiles) for (const d of [dir, home]) rmSync(d, { recursive: true, force: true });
  }
  return { messages, ...(error !== undefined ? { error } : {}), requests: server.messageRequests.filter((r) => !isSideRequest(r)), ctx };
}

/** One message reduced to its shape. */
export interface MessageShape {
  readonly kind: string;
  readonly keys: readonly string[];
  readonly message?: { readonly keys: readonly string[]; readonly content: readonly string[]; readonly usage?: readonly string[] };
  readonly event?: string;
  readonly parent: boolean;
  readonly toolUseResult?: string;
}

export function shapeOf(message: Record<string, unknown>): MessageShape {
  const kind = `${String(message.type)}${message.subtype ? `/${String(message.subtype)}` : ''}`;
  const inner = message.message as { content?: unknown; usage?: Record<string, unknown> } | undefined;
  const content = Array.isArray(inner?.content) ? (inner!.content as { type: string }[]).map((b) => b.type) : typeof inner?.content === 'string' ? ['string'] : [];
  const tur = message.tool_use_result;
  return {
    kind,
    keys: Object.keys(message).sort(),
    ...(inner && typeof inner === 'object'
      ? { message: { keys: Object.keys(inner).sort(), content, ...(inner.usage ? { usage: Object.keys(inner.usage).sort() } : {}) } }
      : {}),
    ...(message.type === 'stream_event' ? { event: String((message.event as { type?: unknown })?.type) } : {}),
    parent: message.parent_tool_use_id !== null && message.parent_tool_use_id !== undefined,
    ...(tur !== undefined ? { toolUseResult: Array.isArray(tur) ? 'array' : typeof tur } : {}),
  };
}

/** Where the real Agent SDK is installed, if anywhere (it is never a dependency of this repository). */
export function realAgentSdkEntry(): string | undefined {
  const candidates = [
    process.env.TOOLGATE_AGENT_SDK_DIR,
    path.join(os.homedir(), '.cache', 'toolgate-bench', 'node_modules', '@anthropic-ai', 'claude-agent-sdk'),
    '/tmp/scratch-sdk/node_modules/@anthropic-ai/claude-agent-sdk',
  ].filter((c): c is string => typeof c === 'string');
  for (const dir of candidates) if (existsSync(path.join(dir, 'sdk.mjs'))) return path.join(dir, 'sdk.mjs');
  return undefined;
}

export async function loadRealAgentSdk(): Promise<{ query: QueryFn; tool: unknown; createSdkMcpServer: unknown } | undefined> {
  const entry = realAgentSdkEntry();
  return entry ? ((await import(pathToFileURL(entry).href)) as { query: QueryFn; tool: unknown; createSdkMcpServer: unknown }) : undefined;
}
