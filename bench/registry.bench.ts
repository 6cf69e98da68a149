import * as z from 'zod';
import { buildTool } from '../src/tool/build-tool.js';
import { toolsToAPI } from '../src/tool/api-format.js';
import { getEmptyToolPermissionContext } from '../src/tool/permission-types.js';
import { assembleToolPool } from '../src/registry/tool-pool.js';
import type { BaseToolEntry } from '../src/registry/base-tools.js';
import { timePerCallUs, type Benchmark } from './lib.js';

function tool(i: number) {
  return buildTool({
    name: `Tool${i}`,
    inputSchema: z.object({
      path: z.string().describe('an absolute path'),
      limit: z.number().int().positive().optional().describe('how many'),
      mode: z.enum(['a', 'b', 'c']).default('a'),
    }),
    maxResultSizeChars: 100_000,
    prompt: async () => `Tool number ${i}.`,
    call: async () => ({ data: 'ok' }),
  });
}

function mcpTool(i: number) {
  return buildTool({
    name: `mcp__server${i % 7}__tool${i}`,
    inputJSONSchema: { type: 'object', properties: { q: { type: 'string' } } },
    mcpInfo: { serverName: `server${i % 7}`, toolName: `tool${i}` },
    isMcp: true,
    maxResultSizeChars: 100_000,
    prompt: async () => `MCP tool ${i}.`,
    call: async () => ({ data: 'ok' }),
  });
}

export const benchmarks: Benchmark[] = [
  {
    group: 'registry',
    names: ['registry.toolToAPI_50_us'],
    async run() {
      const tools = Array.from({ length: 50 }, (_, i) => tool(i));
      const ctx = getEmptyToolPermissionContext('/tmp');
      const value = await timePerCallUs(() => toolsToAPI(tools, { getToolPermissionContext: () => ctx, model: 'claude-sonnet-4-5' }));
      return [{ name: 'registry.toolToAPI_50_us', value, unit: 'us' }];
    },
  },
  {
    group: 'registry',
    names: ['registry.assemble_200mcp_us'],
    async run() {
      const builtIns = Array.from({ length: 15 }, (_, i) => tool(i));
      const entries: BaseToolEntry[] = builtIns.map((t) => ({ name: t.name, load: async () => t }));
      const mcp = Array.from({ length: 200 }, (_, i) => mcpTool(i));
      const ctx = {
        ...getEmptyToolPermissionContext('/tmp'),
        alwaysDenyRules: [{ source: 'userSettings' as const, ruleBehavior: 'deny' as const, ruleValue: { toolName: 'mcp__server3' } }],
      };
      const value = await timePerCallUs(() => assembleToolPool(ctx, mcp, { entries, env: {} }));
      return [{ name: 'registry.assemble_200mcp_us', value, unit: 'us' }];
    },
  },
];
