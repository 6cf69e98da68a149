/** Small tools for tests of the contract, registry and executor (real tools live in src/tools/). */
import * as z from 'zod';
import { buildTool, type ToolDef } from '../../src/tool/build-tool.js';
import type { AnyTool } from '../../src/tool/tool.js';

const valueSchema = z.object({ value: z.string().optional() });

export function makeTestTool(name: string, extra: Partial<ToolDef<typeof valueSchema, string>> = {}): AnyTool {
  return buildTool<typeof valueSchema, string>({
    name,
    inputSchema: valueSchema,
    maxResultSizeChars: 10_000,
    prompt: async () => `The ${name} test tool.`,
    call: async (input) => ({ data: `${name}:${input.value ?? ''}` }),
    ...extra,
  });
}

export function makeMcpTestTool(server: string, tool: string): AnyTool {
  return buildTool({
    name: `mcp__${server}__${tool}`,
    inputJSONSchema: { type: 'object', properties: { q: { type: 'string' } } },
    mcpInfo: { serverName: server, toolName: tool },
    isMcp: true,
    maxResultSizeChars: 100_000,
    prompt: async () => `${tool} from ${server}`,
    call: async () => ({ data: 'ok' }),
  });
}

/**
 * `Ticker`: reports each of `steps` as progress (`{ type: 'ticker', message }`) when its call gets a progress callback,
 * notes in `asked` whether it got one, and returns 'ticked'. Read-only.
 */
export function makeProgressTool(asked: boolean[], steps: readonly string[] = ['step']): AnyTool {
  return makeTestTool('Ticker', {
    isReadOnly: () => true,
    call: async (_input, context, _canUseTool, _message, onProgress) => {
      asked.push(onProgress !== undefined);
      for (const message of steps) onProgress?.({ toolUseID: context.toolUseId ?? '', data: { type: 'ticker', message } });
      return { data: 'ticked' };
    },
  });
}
