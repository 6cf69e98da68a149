/**
 * toolsearch.query_us: one ToolSearch keyword query over a pool of 1,000 deferred MCP tools (index already built),
 * against the baseline of a `select:` lookup of one name.
 */
import { buildTool } from '../src/tool/build-tool.js';
import type { AnyTool } from '../src/tool/tool.js';
import { getToolSearchIndex, parseQuery, searchIndex } from '../src/tools/tool-search/search-index.js';
import { ToolSearchTool } from '../src/tools/tool-search/index.js';
import { round, timePerCallUs, type Benchmark } from './lib.js';

const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'send', 'read', 'watch', 'sync'];
const NOUNS = ['issue', 'message', 'channel', 'file', 'user', 'ticket', 'page', 'record', 'event', 'build'];

function pool(): AnyTool[] {
  const tools: AnyTool[] = [ToolSearchTool];
  for (let i = 0; i < 1000; i++) {
    const server = `server${i % 25}`;
    const tool = `${VERBS[i % 10]}_${NOUNS[Math.floor(i / 10) % 10]}_${i}`;
    tools.push(
      buildTool({
        name: `mcp__${server}__${tool}`,
        inputJSONSchema: { type: 'object', properties: { id: { type: 'string' } } },
        mcpInfo: { serverName: server, toolName: tool },
        isMcp: true,
        searchHint: `${NOUNS[i % 10]} ${VERBS[(i + 3) % 10]} workflow`,
        maxResultSizeChars: 100_000,
        prompt: async () => `Does ${tool.replace(/_/g, ' ')} on ${server}; returns JSON describing the ${NOUNS[i % 10]}.`,
        call: async () => ({ data: 'ok' }),
      }),
    );
  }
  return tools;
}

export const benchmarks: Benchmark[] = [
  {
    group: 'toolsearch',
    names: ['toolsearch.query_us'],
    async run() {
      const tools = pool();
      const index = await getToolSearchIndex(tools, (t) => t.prompt({ getToolPermissionContext: () => { throw new Error('unused'); }, tools }));
      if (index.tools.length !== 1000) throw new Error(`expected 1000 deferred tools, got ${index.tools.length}`);
      const queries = ['send message', '+server7 create ticket', 'delete build record', 'watch event channel'].map(parseQuery);
      let q = 0;
      const value = await timePerCallUs(() => searchIndex(index, queries[q++ % queries.length]!, 5), { samples: 30, batch: 50 });
      const select = parseQuery('select:mcp__server3__delete_file_3');
      const baseline = await timePerCallUs(() => searchIndex(index, select, 5), { samples: 30, batch: 50 });
      return [{ name: 'toolsearch.query_us', value: round(value), unit: 'us', baseline: round(baseline) }];
    },
  },
];
