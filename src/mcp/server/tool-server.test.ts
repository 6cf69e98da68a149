/** What `toolgate mcp serve` sends back for a tool_result, structured results included. */
import { describe, expect, it } from 'vitest';
import { mapMcpToolOutput } from '../result.js';
import { toCallToolResult } from './tool-server.js';

describe('toCallToolResult', () => {
  const structuredContent = { temperature: 21, unit: 'C' };
  const through = (content: { type: 'text'; text: string }[]) =>
    toCallToolResult(mapMcpToolOutput({ content, structuredContent }, 'toolu_1'), { structuredContent });

  it('a structured result is not sent twice: the JSON copy the model side added goes when the tool said something itself', () => {
    const out = through([{ type: 'text', text: 'It is 21 degrees.' }]);
    expect(out.structuredContent).toEqual(structuredContent);
    expect(out.content).toEqual([{ type: 'text', text: 'It is 21 degrees.' }]);
  });

  it('the JSON copy stays when it is all the content (a client that reads only content still gets the result)', () => {
    const out = through([]);
    expect(out.structuredContent).toEqual(structuredContent);
    expect(out.content).toEqual([{ type: 'text', text: JSON.stringify(structuredContent) }]);
  });

  it('without a structured result nothing is dropped, even text that looks like JSON', () => {
    const block = { type: 'tool_result' as const, tool_use_id: 't', content: [{ type: 'text' as const, text: 'a' }, { type: 'text' as const, text: '{}' }] };
    expect(toCallToolResult(block).content).toEqual([{ type: 'text', text: 'a' }, { type: 'text', text: '{}' }]);
  });
});
