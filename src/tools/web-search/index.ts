/**
 * WebSearch: runs through the Messages API's server-side web search tool with the runtime's client, as Claude Code
 * does — a side request whose only tool is `web_search`, whose results (titles, links) and text come back here.
 * Without a client it is disabled with a message that says why; a session has a cap on searches.
 */
import type Anthropic from '@anthropic-ai/sdk';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import '../shared/questions.js';
import { DEFAULT_MAX_WEB_SEARCHES_PER_SESSION } from './limits.js';
import { WEB_SEARCH_TOOL_NAME, webSearchPrompt } from './prompt.js';

export { WEB_SEARCH_TOOL_NAME };
export const WEB_SEARCH_MAX_USES_PER_CALL = 8;
export { DEFAULT_MAX_WEB_SEARCHES_PER_SESSION };

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    /** The model that runs the search request (default: the main loop's model). */
    readonly webSearchModel?: string;
    /** Searches allowed per session (default 200; `CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION` also works). */
    readonly maxWebSearchesPerSession?: number;
  }
}

export const webSearchInputSchema = z.strictObject({
  query: z.string().min(2).describe('The search query'),
  allowed_domains: z.array(z.string()).optional().describe('Only return results from these domains'),
  blocked_domains: z.array(z.string()).optional().describe('Never return results from these domains'),
});
export type WebSearchInput = z.infer<typeof webSearchInputSchema>;

export interface WebSearchHit {
  title: string;
  url: string;
}

export interface WebSearchOutput {
  query: string;
  results: (string | { tool_use_id: string; content: WebSearchHit[] })[];
  durationSeconds: number;
}

const NO_CLIENT =
  'WebSearch is disabled in this session: it needs a Messages API client (give createToolRuntime a `client`). ' +
  'Answer from what you know, or fetch a known URL with WebFetch.';

// Searches made per session id; the session object itself is not reachable from a tool, its id is.
const used = new Map<string, number>();

function cap(context: ToolUseContext): number {
  const env = Number(process.env.CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION);
  return context.options.settings.maxWebSearchesPerSession ?? (Number.isInteger(env) && env >= 0 ? env : DEFAULT_MAX_WEB_SEARCHES_PER_SESSION);
}

function collect(content: readonly Anthropic.Messages.ContentBlock[]): WebSearchOutput['results'] {
  const results: WebSearchOutput['results'] = [];
  for (const block of content) {
    if (block.type === 'text' && block.text.trim()) results.push(block.text.trim());
    else if (block.type === 'web_search_tool_result') {
      const hits = Array.isArray(block.content) ? block.content.map((r) => ({ title: r.title, url: r.url })) : [];
      if (!Array.isArray(block.content)) results.push(`Search error: ${(block.content as { error_code?: string }).error_code ?? 'unknown'}`);
      results.push({ tool_use_id: block.tool_use_id, content: hits });
    }
  }
  return results;
}

export const WebSearchTool = buildTool<typeof webSearchInputSchema, WebSearchOutput>({
  name: WEB_SEARCH_TOOL_NAME,
  asyncSafe: true,
  searchHint: 'search the internet for current information',
  inputSchema: webSearchInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  permissionTraits: { kind: 'fetch' },
  prompt: async () => webSearchPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => input.query,
  async validateInput(input, context) {
    if (!context.services.modelClient) return { result: false, message: NO_CLIENT, errorCode: 1 };
    if (input.allowed_domains?.length && input.blocked_domains?.length) {
      return { result: false, message: 'Give allowed_domains or blocked_domains, not both.', errorCode: 2 };
    }
    if ((used.get(context.options.sessionId) ?? 0) >= cap(context)) {
      return { result: false, message: `This session has used its ${cap(context)} web searches; no more can be made.`, errorCode: 3 };
    }
    return { result: true };
  },
  async call(input, context) {
    const client = context.services.modelClient;
    if (!client) throw new Error(NO_CLIENT);
    const started = Date.now();
    const sessionId = context.options.sessionId;
    const remaining = cap(context) - (used.get(sessionId) ?? 0);
    if (remaining <= 0) throw new Error(`This session has used its ${cap(context)} web searches; no more can be made.`);
    const tool: Anthropic.Messages.WebSearchTool20250305 = {
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: Math.min(WEB_SEARCH_MAX_USES_PER_CALL, remaining),
      ...(input.allowed_domains?.length ? { allowed_domains: input.allowed_domains } : {}),
      ...(input.blocked_domains?.length ? { blocked_domains: input.blocked_domains } : {}),
    };
    const response = await client.messages.create(
      {
        model: context.options.settings.webSearchModel ?? context.options.mainLoopModel,
        max_tokens: 4096,
        tools: [tool],
        messages: [{ role: 'user', content: `Search the web for: ${input.query}` }],
      },
      { signal: context.abortController.signal },
    );
    const searches = response.usage?.server_tool_use?.web_search_requests ?? 1;
    used.set(sessionId, (used.get(sessionId) ?? 0) + Math.max(1, searches));
    return { data: { query: input.query, results: collect(response.content), durationSeconds: (Date.now() - started) / 1000 } };
  },
  mapToolResultToToolResultBlockParam(data, toolUseId) {
    const parts = [`Web search results for "${data.query}":`];
    for (const r of data.results) {
      if (typeof r === 'string') parts.push(r);
      else if (r.content.length === 0) parts.push('(no results)');
      else parts.push(`Links: ${JSON.stringify(r.content)}`);
    }
    parts.push('Cite the sources you use as Markdown links.');
    return { type: 'tool_result', tool_use_id: toolUseId, content: parts.join('\n\n') };
  },
  renderToolUseMessage: (input) => String(input.query ?? ''),
  renderToolResultMessage: (data) => {
    const n = data.results.reduce((sum, r) => sum + (typeof r === 'string' ? 0 : r.content.length), 0);
    return `${n} ${n === 1 ? 'result' : 'results'} · ${data.durationSeconds.toFixed(1)}s`;
  },
  loadViews: () => import('./render.js').then((m) => m.webSearchViews),
});
