import Anthropic from '@anthropic-ai/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { startScriptedServer } from '../../testing/index.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { WebSearchTool } from './index.js';

const session = tempSession('toolgate-websearch-');
afterAll(() => session.cleanup());

describe('WebSearch', () => {
  it('is disabled with a clear message without a client', async () => {
    const outcome = await runToolUse(toolUse('WebSearch', { query: 'toolgate' }), assistantMessage, allowAll, makeContext([WebSearchTool], session.dir));
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome.result.content)).toMatch(/disabled in this session: it needs a Messages API client/);
  });

  it('sends the server-side web_search tool with the domain filter, and caps the session', async () => {
    const model = await startScriptedServer([{ content: [{ type: 'text', text: 'toolgate is a tool layer.' }] }]);
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL: model.url, maxRetries: 0 });
      const context = makeContext([WebSearchTool], session.dir, { services: { modelClient: client }, settings: { maxWebSearchesPerSession: 1 } });
      const run = (input: Record<string, unknown>) => runToolUse(toolUse('WebSearch', input), assistantMessage, allowAll, context);
      const both = await run({ query: 'toolgate', allowed_domains: ['a.com'], blocked_domains: ['b.com'] });
      expect(textOf(both.result.content)).toMatch(/not both/);
      const ok = await run({ query: 'toolgate', allowed_domains: ['github.com'] });
      expect(textOf(ok.result.content)).toContain('toolgate is a tool layer.');
      expect(model.messageRequests[0]!.body.tools).toEqual([
        { type: 'web_search_20250305', name: 'web_search', max_uses: 1, allowed_domains: ['github.com'] },
      ]);
      const capped = await run({ query: 'again' });
      expect(textOf(capped.result.content)).toMatch(/used its 1 web searches/);
    } finally {
      await model.close();
    }
  });
});
