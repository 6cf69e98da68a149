/**
 * Redaction beyond a tool's own result text: a real MCP server's result, the newMessages a tool returns, a hook's
 * added context and systemMessage, a background notification, a credential that appears in process.env after the
 * runtime started, and a short credential set through `settings.env` (which Bash hands its children by name).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../src/agent/types.js';
import { StreamingToolExecutor } from '../src/execution/streaming-tool-executor.js';
import { McpClientManager } from '../src/mcp/manager.js';
import { EVERYTHING_SERVER, nodeServer, scoped } from '../src/mcp/test-helpers/servers.js';
import { buildTool } from '../src/tool/build-tool.js';
import { NotificationQueue } from '../src/tool/notification-queue.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from '../src/tool/tool.js';
import { allowAll, assistantMessage, makeContext } from './helpers/execution.js';

const SECRET = 'tg-paths-secret-4f1e9a0b7c';
let dir: string;
const open: { dispose(): Promise<void> }[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-redact-paths-'));
  process.env.TOOLGATE_PATHS_TEST_TOKEN = SECRET;
});
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.dispose();
  delete process.env.TOOLGATE_PATHS_TEST_TOKEN;
  delete process.env.TOOLGATE_LATE_API_KEY;
  rmSync(dir, { recursive: true, force: true });
});

async function runtime(options: Partial<ToolRuntimeOptions> = {}): Promise<ToolRuntime> {
  const rt = await createToolRuntime({ cwd: dir, sessionDir: path.join(dir, '.session'), ...options, settings: { sources: [], ...options.settings } });
  open.push(rt);
  return rt;
}

let n = 0;
const use = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_p${++n}`, name, input }) as ToolUseBlock;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
const everything = (m: readonly MessageParam[] | MessageParam) => JSON.stringify(m);

const chatty = buildTool({
  name: 'Chatty',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 10_000,
  prompt: async () => '',
  call: async () => ({
    data: 'done',
    newMessages: [
      { role: 'user', content: `the key is ${SECRET}` },
      { role: 'user', content: [{ type: 'text', text: `again: ${SECRET}` }] },
    ] as MessageParam[],
  }),
});

describe('redaction on every path to the model', () => {
  it('a real MCP server echoing the secret', { timeout: 120_000 }, async () => {
    const manager = new McpClientManager({ cwd: dir, servers: scoped({ ev: nodeServer(EVERYTHING_SERVER) }) });
    open.push(manager);
    const rt = await runtime({ toolProviders: [manager.toolProvider()], rules: { allow: ['mcp__ev__echo'] } });
    const { results } = await rt.run([use('mcp__ev__echo', { message: `leak ${SECRET} now` })]);
    expect(results[0]!.is_error).toBeFalsy();
    expect(text(results[0]!)).toContain('leak [REDACTED:TOOLGATE_PATHS_TEST_TOKEN] now');
    expect(JSON.stringify(results)).not.toContain(SECRET);
  });

  it('a tool’s newMessages and a PostToolUse hook’s context and systemMessage', async () => {
    const rt = await runtime({
      tools: [chatty],
      rules: { allow: ['Chatty'] },
      hooks: [{ event: 'PostToolUse', callback: async () => ({ systemMessage: `hook saw ${SECRET}`, hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `context ${SECRET}` } }) }],
    });
    const result = await rt.run([use('Chatty', {})]);
    expect(text(result.results[0]!)).toBe('done');
    const all = everything([result.message, ...result.newMessages]) + JSON.stringify(result.outcomes.map((o) => [o.newMessages, o.userNotices]));
    expect(all).toContain('the key is [REDACTED:TOOLGATE_PATHS_TEST_TOKEN]');
    expect(all).toContain('context [REDACTED:TOOLGATE_PATHS_TEST_TOKEN]');
    expect(all).toContain('hook saw [REDACTED:TOOLGATE_PATHS_TEST_TOKEN]');
    expect(all).not.toContain(SECRET);
  });

  it('a background notification drained into a result’s newMessages', async () => {
    const notifications = new NotificationQueue();
    const context = makeContext([chatty], dir, { services: { notifications } });
    notifications.push({ role: 'user', content: `<task-notification>output: ${SECRET}</task-notification>` });
    const executor = new StreamingToolExecutor([chatty], allowAll, context);
    executor.addTool(use('Chatty', {}), assistantMessage);
    const outcomes = [];
    for await (const update of executor.getRemainingResults()) if (update.type === 'result') outcomes.push(update.outcome);
    const all = everything(outcomes.flatMap((o) => o.newMessages));
    expect(all).toContain('output: [REDACTED:TOOLGATE_PATHS_TEST_TOKEN]');
    expect(all).not.toContain(SECRET);
  });

  it('a credential put in process.env after the runtime started is redacted from the next run on', async () => {
    const late = 'tg-late-credential-77aa11';
    writeFileSync(path.join(dir, 'late.txt'), `value=${late}\n`);
    const rt = await runtime();
    const first = await rt.run([use('Read', { file_path: path.join(dir, 'late.txt') })]);
    expect(text(first.results[0]!)).toContain(late); // not a secret yet: nothing says so
    process.env.TOOLGATE_LATE_API_KEY = late;
    const second = await rt.run([use('Read', { file_path: path.join(dir, 'late.txt') })]);
    expect(text(second.results[0]!)).toContain('value=[REDACTED:TOOLGATE_LATE_API_KEY]');
    expect(text(second.results[0]!)).not.toContain(late);
  });

  it('a 5-character credential from settings.env: Bash gets it, the model sees the marker; the same letters inside a word stay', async () => {
    const rt = await runtime({ settings: { object: { env: { DEPLOY_TOKEN: 'pw9x2' } } }, rules: { allow: ['Bash(printf:*)'] } });
    const { results } = await rt.run([use('Bash', { command: 'printf "%s|apw9x2b|%s" "$DEPLOY_TOKEN" "$DEPLOY_TOKEN"' })]);
    expect(text(results[0]!)).toBe('[REDACTED:DEPLOY_TOKEN]|apw9x2b|[REDACTED:DEPLOY_TOKEN]');
  });
});
