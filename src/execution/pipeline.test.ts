import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool, type ToolDef } from '../tool/build-tool.js';
import { deepFreeze } from '../tool/deep-immutable.js';
import { imageToolResult } from '../tool/tool-result.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import {
  allowAll,
  assistantMessage,
  makeContext,
  scriptedCanUseTool,
  tempSession,
  textOf,
  toolUse,
  type TempSession,
} from '../../test/helpers/execution.js';
import type { ToolEvent } from './errors.js';
import { runToolUse } from './pipeline.js';
import { registerSecretValues } from './redaction.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession();
});
afterEach(() => session.cleanup());

const fileSchema = z.strictObject({
  file_path: z.string(),
  limit: z.number().int().positive().optional(),
  mode: z.enum(['fast', 'slow']).optional(),
});

function fileTool(extra: Partial<ToolDef<typeof fileSchema, string>> = {}): AnyTool {
  return buildTool<typeof fileSchema, string>({
    name: 'FileTool',
    aliases: ['OldFileTool'],
    inputSchema: fileSchema,
    maxResultSizeChars: 100,
    prompt: async () => 'reads a file',
    call: async (input) => ({ data: `read ${input.file_path}` }),
    ...extra,
  });
}

async function run(tools: AnyTool[], name: string, input: unknown, opts: { context?: ToolUseContext; canUseTool?: Parameters<typeof runToolUse>[2] } = {}) {
  const context = opts.context ?? makeContext(tools, session.dir);
  return runToolUse(toolUse(name, input, 'toolu_test'), assistantMessage, opts.canUseTool ?? allowAll, context);
}

describe('pipeline exit paths: each gives exactly one tool_result for the id', () => {
  it('runs a valid call and returns its result', async () => {
    const outcome = await run([fileTool()], 'FileTool', { file_path: '/a' });
    expect(outcome.result).toEqual({ type: 'tool_result', tool_use_id: 'toolu_test', content: 'read /a' });
    expect(outcome.isError).toBe(false);
    expect(outcome.stage).toBe('completed');
  });

  it('unknown tool → No such tool available', async () => {
    const outcome = await run([fileTool()], 'Nope', {});
    expect(outcome.result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_test',
      content: '<tool_use_error>No such tool available: Nope</tool_use_error>',
      is_error: true,
    });
    expect(outcome.errorClass).toBe('unknown_tool');
  });

  it('finds a tool by alias and by the fallback list of former tools', async () => {
    expect((await run([fileTool()], 'OldFileTool', { file_path: '/b' })).result.content).toBe('read /b');
    const retired = makeTestTool('Retired', { aliases: ['Ancient'] });
    const context = makeContext([fileTool()], session.dir);
    const outcome = await runToolUse(toolUse('Ancient', { value: 'x' }), assistantMessage, allowAll, context, { fallbackTools: [retired] });
    expect(outcome.result.content).toBe('Retired:x');
  });

  it('abort before start: the call does not run', async () => {
    let ran = false;
    const tool = fileTool({ call: async () => ((ran = true), { data: 'x' }) });
    const context = makeContext([tool], session.dir);
    context.abortController.abort('interrupt');
    const outcome = await run([tool], 'FileTool', { file_path: '/a' }, { context });
    expect(ran).toBe(false);
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome.result.content)).toContain('cancelled (interrupt) before this tool call started');
  });

  it('abort while the permission check ran: the call does not start', async () => {
    let ran = false;
    const tool = fileTool({ call: async () => ((ran = true), { data: 'x' }) });
    const context = makeContext([tool], session.dir);
    const outcome = await run([tool], 'FileTool', { file_path: '/a' }, {
      context,
      canUseTool: async (_t, input) => {
        context.abortController.abort('interrupt');
        return { behavior: 'allow', updatedInput: input };
      },
    });
    expect(ran).toBe(false);
    expect(outcome.stage).toBe('abort');
  });

  it('schema failure names each parameter with the expected and received type', async () => {
    const outcome = await run([fileTool()], 'FileTool', { limit: '10', mode: 'turbo', extra: 1 });
    const text = textOf(outcome.result.content);
    expect(outcome.isError).toBe(true);
    expect(text).toMatch(/^<tool_use_error>InputValidationError: FileTool failed due to the following issues:/);
    expect(text).toContain('The required parameter `file_path` is missing');
    expect(text).toContain('The parameter `limit` type is expected as `number` but provided as `string`');
    expect(text).toContain('The parameter `mode` must be one of "fast", "slow" but provided as "turbo"');
    expect(text).toContain('An unexpected parameter `extra` was provided');
    expect(text).not.toContain('ToolSearch');
  });

  it('input that is not an object, or carries prototype-pollution keys, is refused before the schema', async () => {
    for (const input of [null, [1, 2], 'file', 42]) {
      const outcome = await run([fileTool()], 'FileTool', input);
      expect(outcome.isError).toBe(true);
      expect(textOf(outcome.result.content)).toContain('must be a JSON object');
    }
    const hostile = JSON.parse('{"file_path": "/a", "nested": {"__proto__": {"polluted": true}}}');
    const loose = buildTool({ name: 'Loose', inputSchema: z.looseObject({}), maxResultSizeChars: 100, prompt: async () => '', call: async () => ({ data: 'ran' }) });
    const outcome = await run([loose], 'Loose', hostile);
    expect(textOf(outcome.result.content)).toContain('`nested.__proto__` is not allowed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a deferred tool called before ToolSearch loaded it gets the select:<name> hint; once loaded it does not', async () => {
    const deferred = fileTool({ shouldDefer: true });
    const toolSearch = makeTestTool('ToolSearch');
    const tools = [deferred, toolSearch];
    const notLoaded = await run(tools, 'FileTool', { file_path: '/a', limit: '5' });
    expect(textOf(notLoaded.result.content)).toContain('call ToolSearch with query "select:FileTool"');
    expect(notLoaded.errorClass).toBe('deferred_tool_not_loaded');
    const context = makeContext(tools, session.dir);
    const loadedContext = { ...context, options: { ...context.options, loadedDeferredTools: new Set(['FileTool']) } };
    const loaded = await run(tools, 'FileTool', { file_path: '/a', limit: '5' }, { context: loadedContext });
    expect(textOf(loaded.result.content)).not.toContain('ToolSearch');
  });

  it('validateInput false → its message; a throwing validateInput → an error, and the call does not run', async () => {
    const refusing = fileTool({ validateInput: async () => ({ result: false, message: 'old_string and new_string are the same' }) });
    const outcome = await run([refusing], 'FileTool', { file_path: '/a' });
    expect(outcome.result.content).toBe('<tool_use_error>old_string and new_string are the same</tool_use_error>');
    const throwing = fileTool({
      validateInput: async () => {
        throw Object.assign(new Error('stat failed'), { code: 'EACCES' });
      },
    });
    const thrown = await run([throwing], 'FileTool', { file_path: '/a' });
    expect(thrown.isError).toBe(true);
    expect(thrown.errorClass).toBe('Error:EACCES');
  });

  it('permission denial returns the engine message; ask with nobody to answer is denied naming the rule to add', async () => {
    const deny = scriptedCanUseTool(() => ({ behavior: 'deny', message: 'Denied by rule FileTool(/etc/**) in /p/.claude/settings.json', decisionReason: { layer: 'denyRule', reason: 'x' } }));
    const denied = await run([fileTool()], 'FileTool', { file_path: '/etc/passwd' }, { canUseTool: deny });
    // As Claude Code's denials read: the message itself, an error, no <tool_use_error> around it.
    expect(denied.result).toMatchObject({ content: 'Denied by rule FileTool(/etc/**) in /p/.claude/settings.json', is_error: true });
    expect(denied.stage).toBe('permission');
    const context = makeContext([fileTool()], session.dir);
    await run([fileTool()], 'FileTool', { file_path: '/x' }, { context, canUseTool: deny });
    await run([fileTool()], 'FileTool', { file_path: '/y' }, { context, canUseTool: deny });
    expect(context.localDenialTracking).toEqual({ consecutiveDenials: 2, totalDenials: 2 });
    await run([fileTool()], 'FileTool', { file_path: '/z' }, { context });
    expect(context.localDenialTracking).toEqual({ consecutiveDenials: 0, totalDenials: 2 });
    const ask = scriptedCanUseTool(() => ({ behavior: 'ask', message: 'FileTool wants /x', suggestions: [{ toolName: 'FileTool', ruleContent: 'path (1)' }] }));
    const asked = await run([fileTool()], 'FileTool', { file_path: '/x' }, { canUseTool: ask });
    expect(textOf(asked.result.content)).toContain('add "FileTool(path \\(1\\))" to permissions.allow');
  });

  it('a permission check that throws denies (fail closed)', async () => {
    let ran = false;
    const tool = fileTool({ call: async () => ((ran = true), { data: 'x' }) });
    const outcome = await run([tool], 'FileTool', { file_path: '/a' }, {
      canUseTool: async () => {
        throw new TypeError('engine bug');
      },
    });
    expect(ran).toBe(false);
    expect(outcome.decision?.behavior).toBe('deny');
    expect(textOf(outcome.result.content)).toContain('The permission check failed (TypeError)');
  });

  it('a thrown call() becomes an error result with the message for the model and a safe class for telemetry', async () => {
    const tool = fileTool({
      call: async () => {
        throw Object.assign(new Error('ENOENT: no such file /secret/path'), { code: 'ENOENT' });
      },
    });
    const outcome = await run([tool], 'FileTool', { file_path: '/secret/path' });
    expect(outcome.result.content).toBe('<tool_use_error>ENOENT: no such file /secret/path</tool_use_error>');
    expect(outcome.errorClass).toBe('Error:ENOENT');
    expect(outcome.stage).toBe('call');
  });

  it('a call() that returns nothing, or a result the tool cannot map, is an error, not a crash', async () => {
    const nothing = fileTool({ call: async () => undefined as never });
    expect((await run([nothing], 'FileTool', { file_path: '/a' })).isError).toBe(true);
    const unmappable = fileTool({
      mapToolResultToToolResultBlockParam: () => {
        throw new Error('bad');
      },
    });
    const outcome = await run([unmappable], 'FileTool', { file_path: '/a' });
    expect(outcome.errorClass).toBe('result_mapping');
  });
});

describe('three copies of the input', () => {
  it('never mutates the API original; hooks/permissions see the backfilled clone; call() runs with the parsed input', async () => {
    let seenByCall: Record<string, unknown> | undefined;
    const tool = fileTool({
      backfillObservableInput: (input) => {
        input.file_path = `/abs${String(input.file_path)}`;
        input.derived = true;
      },
      call: async (input) => {
        seenByCall = input;
        return { data: 'ok' };
      },
    });
    const gate = scriptedCanUseTool((_t, input) => ({ behavior: 'allow', updatedInput: input }));
    const original = deepFreeze({ file_path: '/rel', limit: 3 });
    const context = makeContext([tool], session.dir);
    await runToolUse(toolUse('FileTool', original), assistantMessage, gate, context);
    expect(original).toEqual({ file_path: '/rel', limit: 3 });
    expect(gate.calls[0]!.input).toEqual({ file_path: '/abs/rel', limit: 3, derived: true });
    expect(seenByCall).toEqual({ file_path: '/rel', limit: 3 });
  });

  it('a permission layer that really changed the input wins', async () => {
    let seen: unknown;
    const tool = fileTool({ call: async (input) => ((seen = input), { data: 'ok' }) });
    const gate = scriptedCanUseTool(() => ({ behavior: 'allow', updatedInput: { file_path: '/approved' } }));
    await run([tool], 'FileTool', { file_path: '/asked' }, { canUseTool: gate });
    expect(seen).toEqual({ file_path: '/approved' });
  });

  it('strips _simulatedSedEdit from model input even when the schema let it through', async () => {
    let seen: Record<string, unknown> | undefined;
    const bash = buildTool({
      name: 'Bash',
      inputSchema: z.object({ command: z.string(), _simulatedSedEdit: z.unknown().optional() }),
      maxResultSizeChars: 30_000,
      prompt: async () => '',
      call: async (input) => ((seen = input), { data: 'done' }),
    });
    const gate = scriptedCanUseTool((_t, input) => ({ behavior: 'allow', updatedInput: input }));
    await run([bash], 'Bash', { command: 'sed -i s/a/b/ f', _simulatedSedEdit: { filePath: '/etc/passwd', newContent: 'x' } }, { canUseTool: gate });
    expect(seen).toEqual({ command: 'sed -i s/a/b/ f' });
    expect(gate.calls[0]!.input).not.toHaveProperty('_simulatedSedEdit');
  });
});

describe('result budget (per tool)', () => {
  it('persists output over maxResultSizeChars to <sessionDir>/tool-results/<id>.txt with a preview, the path and the size', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const tool = fileTool({ call: async () => ({ data: big }) });
    const outcome = await run([tool], 'FileTool', { file_path: '/a' });
    const file = path.join(session.dir, 'tool-results', 'toolu_test.txt');
    expect(readFileSync(file, 'utf8')).toBe(big);
    const text = textOf(outcome.result.content);
    expect(text).toMatch(/^<persisted-output>\nOutput too large: [\d,]+ characters \(limit 100\)/);
    expect(text).toContain(`Full output saved to: ${file}`);
    expect(text).toContain('line 0\nline 1\n');
    expect(text.length).toBeLessThan(2_600);
    expect(outcome.persistedPath).toBe(file);
    expect(outcome.isError).toBe(false);
  });

  it('never persists tools with an Infinity limit, nor images as text', async () => {
    const big = 'x'.repeat(5_000);
    const reader = fileTool({ maxResultSizeChars: Infinity, call: async () => ({ data: big }) });
    expect((await run([reader], 'FileTool', { file_path: '/a' })).result.content).toBe(big);
    const image = fileTool({
      call: async () => ({ data: 'A'.repeat(10_000) }),
      mapToolResultToToolResultBlockParam: (data, id) => imageToolResult(id, data, 'image/png'),
    });
    const outcome = await run([image], 'FileTool', { file_path: '/a' });
    expect(outcome.persistedPath).toBeUndefined();
    expect(outcome.result.content).toEqual([{ type: 'image', source: { type: 'base64', data: 'A'.repeat(10_000), media_type: 'image/png' } }]);
  });

  it('a budget failure (the session dir cannot be written) is one is_error result', async () => {
    const blocked = path.join(session.dir, 'not-a-dir');
    writeFileSync(blocked, 'file in the way');
    const tool = fileTool({ call: async () => ({ data: 'y'.repeat(500) }) });
    const context = makeContext([tool], blocked);
    const outcome = await run([tool], 'FileTool', { file_path: '/a' }, { context });
    expect(outcome.isError).toBe(true);
    expect(outcome.stage).toBe('budget');
    expect(outcome.errorClass).toMatch(/^ResultBudgetError:E/);
    expect(existsSync(path.join(blocked, 'tool-results'))).toBe(false);
  });

  it('honours a per-tool override from settings', async () => {
    const tool = fileTool({ call: async () => ({ data: 'z'.repeat(500) }) });
    const base = makeContext([tool], session.dir);
    const context = { ...base, options: { ...base.options, settings: { maxResultSizeChars: { FileTool: 1_000 } } } };
    expect((await run([tool], 'FileTool', { file_path: '/a' }, { context })).persistedPath).toBeUndefined();
  });
});

describe('newMessages, context modifiers and telemetry', () => {
  it('passes the tool newMessages and contextModifier through', async () => {
    const modifier = (c: ToolUseContext) => c;
    const tool = fileTool({ call: async () => ({ data: 'ok', newMessages: [{ role: 'user', content: 'transcript' }], contextModifier: modifier }) });
    const outcome = await run([tool], 'FileTool', { file_path: '/a' });
    expect(outcome.newMessages).toEqual([{ role: 'user', content: 'transcript' }]);
    expect(outcome.contextModifier).toBe(modifier);
  });

  it('emits start, decision and end events with safe attributes only; a throwing sink changes nothing', async () => {
    const events: ToolEvent[] = [];
    const tool = fileTool({
      call: async () => {
        throw Object.assign(new Error('secret /home/u/.ssh/id_rsa'), { code: 'EPERM' });
      },
    });
    const context = makeContext([tool], session.dir);
    await runToolUse(toolUse('FileTool', { file_path: '/home/u/.ssh/id_rsa' }), assistantMessage, allowAll, context, { eventSink: { emit: (e) => events.push(e) } });
    expect(events.map((e) => e.name)).toEqual(['tool.start', 'tool.decision', 'tool.end']);
    expect(events[2]!.attributes).toMatchObject({ 'tool.name': 'FileTool', 'tool.outcome': 'error', 'tool.error_class': 'Error:EPERM', 'tool.stage': 'call' });
    expect(JSON.stringify(events)).not.toContain('id_rsa');
    const outcome = await runToolUse(toolUse('FileTool', { file_path: '/a' }), assistantMessage, allowAll, makeContext([fileTool()], session.dir), {
      eventSink: {
        emit: () => {
          throw new Error('exporter down');
        },
      },
    });
    expect(outcome.isError).toBe(false);
  });

  it('tool content reaches a sink only when it asks for tool details; sizes always', async () => {
    const tool = fileTool({ call: async () => ({ data: 'contents' }) });
    const plain: ToolEvent[] = [];
    await runToolUse(toolUse('FileTool', { file_path: '/a/b.ts' }), assistantMessage, allowAll, makeContext([tool], session.dir), { eventSink: { emit: (e) => plain.push(e) } });
    expect(plain.every((e) => e.detail === undefined)).toBe(true);
    expect(plain[2]!.attributes).toMatchObject({ 'tool.input_size_bytes': JSON.stringify({ file_path: '/a/b.ts' }).length, 'tool.result_size_bytes': 'contents'.length });
    const detailed: ToolEvent[] = [];
    await runToolUse(toolUse('FileTool', { file_path: '/a/b.ts' }), assistantMessage, allowAll, makeContext([tool], session.dir), {
      eventSink: { emit: (e) => detailed.push(e), content: { toolDetails: true } },
    });
    expect(detailed[2]!.detail).toEqual({ input: { file_path: '/a/b.ts' } });
  });

  it('a secret a tool registers while it runs is hidden in its own error message too', async () => {
    const token = `tok-${Date.now().toString(36)}-registered-mid-call`;
    const tool = fileTool({
      call: async () => {
        registerSecretValues([{ label: 'MID_CALL', value: token, named: true }]);
        throw new Error(`the server said: bad token ${token}`);
      },
    });
    const outcome = await run([tool], 'FileTool', { file_path: '/a' });
    expect(textOf(outcome.result.content)).toContain("[REDACTED:MID_CALL]");
    expect(textOf(outcome.result.content)).not.toContain(token);
  });

  it('reports progress tagged with the tool_use id', async () => {
    const tool = fileTool({
      call: async (_i, _c, _u, _m, onProgress) => {
        onProgress?.({ toolUseID: 'whatever', data: { type: 'lines', n: 1 } });
        return { data: 'ok' };
      },
    });
    const seen: unknown[] = [];
    await runToolUse(toolUse('FileTool', { file_path: '/a' }, 'toolu_p'), assistantMessage, allowAll, makeContext([tool], session.dir), {
      onProgress: (p) => seen.push(p),
    });
    expect(seen).toEqual([{ toolUseID: 'toolu_p', data: { type: 'lines', n: 1 } }]);
  });
});
