import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { deferredLoadingFor, toolsToAPI } from '../../tool/api-format.js';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import type { AnyTool } from '../../tool/tool.js';
import { runToolUse } from '../../execution/pipeline.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { makeMcpTestTool, makeTestTool } from '../../../test/helpers/tools.js';
import { parseQuery } from './search-index.js';
import { ToolSearchTool } from './index.js';

const session = tempSession('toolgate-toolsearch-');
afterAll(() => session.cleanup());

const countSchema = z.strictObject({ count: z.number(), flag: z.boolean() });
const Counter = buildTool({
  name: 'Counter',
  searchHint: 'tally increment numbers',
  inputSchema: countSchema,
  shouldDefer: true,
  maxResultSizeChars: 1000,
  prompt: async () => 'Counts things.',
  call: async (input) => ({ data: `counted ${input.count}` }),
});
const Notebook = makeTestTool('NotebookEdit', { shouldDefer: true, searchHint: 'jupyter ipynb cell' });
const Pinned = makeTestTool('Pinned', { shouldDefer: true, alwaysLoad: true });
const Read = makeTestTool('Read');
const slackSend = makeMcpTestTool('slack', 'send_message');
const slackRead = makeMcpTestTool('slack', 'read_channel');
const mailSend = makeMcpTestTool('mail', 'send');
const pool: AnyTool[] = [Counter, Notebook, Pinned, Read, ToolSearchTool, mailSend, slackRead, slackSend];

async function search(query: string, max_results?: number, model?: string) {
  const context = makeContext(pool, session.dir, { mainLoopModel: model });
  const outcome = await runToolUse(toolUse('ToolSearch', { query, ...(max_results ? { max_results } : {}) }), assistantMessage, allowAll, context);
  return { outcome, context };
}

describe('ToolSearch queries', () => {
  it('parses the three forms', () => {
    expect(parseQuery('select:A, B,,C')).toEqual({ select: ['A', 'B', 'C'], required: [], terms: [] });
    expect(parseQuery('+slack send')).toEqual({ required: ['slack'], terms: ['send'] });
  });

  it('select: loads exact names (case-insensitive) and reports unknown ones', async () => {
    const { outcome } = await search('select:counter,Nope,Read');
    expect(outcome.isError).toBe(false);
    expect(outcome.result.content).toEqual([
      { type: 'tool_reference', tool_name: 'Counter' },
      { type: 'text', text: 'Not deferred tools here (check the name): Nope, Read' },
    ]);
  });

  it('keywords rank with the search hint; +term must be in the name', async () => {
    const jupyter = await search('jupyter');
    expect(jupyter.outcome.result.content).toEqual([{ type: 'tool_reference', tool_name: 'NotebookEdit' }]);
    const send = await search('+slack send');
    expect((send.outcome.result.content as { tool_name: string }[]).map((b) => b.tool_name)).toEqual(['mcp__slack__send_message']);
    const anySend = await search('send', 1);
    expect((anySend.outcome.result.content as unknown[]).length).toBe(1);
    const slackAll = await search('+slack');
    expect((slackAll.outcome.result.content as { tool_name: string }[]).map((b) => b.tool_name).sort()).toEqual([
      'mcp__slack__read_channel',
      'mcp__slack__send_message',
    ]);
  });

  it('alwaysLoad tools are never deferred, so never found', async () => {
    const { outcome } = await search('select:Pinned');
    expect(textOf(outcome.result.content)).toContain('No deferred tool matches');
  });

  it('without tool_reference support the schemas come back as text', async () => {
    const { outcome } = await search('select:Counter', undefined, 'claude-haiku-4-5');
    const text = textOf(outcome.result.content);
    expect(text).toContain('<functions>');
    expect(text).toContain('"count":{"type":"number"}');
  });
});

describe('a deferred tool through the pipeline', () => {
  it('asks for a load first, then runs once ToolSearch loaded it (context modifier)', async () => {
    const context = makeContext(pool, session.dir, { permissionContext: getEmptyToolPermissionContext(session.dir) });
    const before = await runToolUse(toolUse('Counter', { count: '3', flag: 'true' }), assistantMessage, allowAll, context);
    expect(before.isError).toBe(true);
    expect(textOf(before.result.content)).toContain('select:Counter');

    const loaded = await runToolUse(toolUse('ToolSearch', { query: 'select:Counter' }), assistantMessage, allowAll, context);
    const next = loaded.contextModifier!(context);
    expect([...(next.options.loadedDeferredTools ?? [])]).toEqual(['Counter']);
    const after = await runToolUse(toolUse('Counter', { count: 3, flag: true }), assistantMessage, allowAll, next);
    expect(after.isError).toBe(false);
    expect(textOf(after.result.content)).toBe('counted 3');
  });

  it('text mode sends a deferred tool only once it is loaded; reference mode always, with defer_loading', async () => {
    const opts = { getToolPermissionContext: () => getEmptyToolPermissionContext(session.dir) };
    const names = (defs: { name: string }[]) => defs.map((d) => d.name);
    const textBefore = await toolsToAPI(pool, { ...opts, deferredLoading: deferredLoadingFor('claude-haiku-4-5') });
    expect(names(textBefore)).toEqual(['Pinned', 'Read', 'ToolSearch']);
    const textAfter = await toolsToAPI(pool, { ...opts, deferredLoading: deferredLoadingFor('claude-haiku-4-5', new Set(['Counter'])) });
    expect(names(textAfter)).toEqual(['Counter', 'Pinned', 'Read', 'ToolSearch']);
    expect(textAfter[0]).not.toHaveProperty('defer_loading');
    const ref = await toolsToAPI(pool, { ...opts, deferredLoading: deferredLoadingFor('claude-sonnet-4-5', new Set(['Counter'])) });
    expect(names(ref)).toEqual(names(pool));
    expect(ref.filter((d) => d.defer_loading).map((d) => d.name)).toEqual(['Counter', 'NotebookEdit', ...names(pool).slice(5)]);
  });
});
