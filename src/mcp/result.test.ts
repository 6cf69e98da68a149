import { describe, expect, it } from 'vitest';
import { mapMcpToolOutput } from './result.js';

describe('MCP results as tool_result blocks', () => {
  it('a single text stays a string; nothing at all says so', () => {
    expect(mapMcpToolOutput({ content: [{ type: 'text', text: 'hi' }] }, 't1')).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'hi' });
    expect(mapMcpToolOutput({ content: [] }, 't1').content).toBe('(no output)');
  });
  it('structuredContent is added unless a text block already carries it (any key order)', () => {
    expect(mapMcpToolOutput({ content: [], structuredContent: { a: 1 } }, 't').content).toBe('{"a":1}');
    expect(mapMcpToolOutput({ content: [{ type: 'text', text: '{ "b": 2, "a": 1 }' }], structuredContent: { a: 1, b: 2 } }, 't').content).toBe('{ "b": 2, "a": 1 }');
    expect(mapMcpToolOutput({ content: [{ type: 'text', text: 'Sunny' }], structuredContent: { t: 30 } }, 't').content).toEqual([
      { type: 'text', text: 'Sunny' },
      { type: 'text', text: '{"t":30}' },
    ]);
  });
  it('images, unsupported media, audio, embedded and linked resources', () => {
    const r = mapMcpToolOutput(
      {
        content: [
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
        isError: true,
      },
      't',
    );
    expect(r.is_error).toBe(true);
    const blocks = r.content as { type: string; text?: string }[];
    expect(blocks[0]).toEqual({ type: 'image', source: { type: 'base64', data: 'iVBORw0KGgo=', media_type: 'image/png' } });
    expect(blocks.slice(1).map((b) => b.text)).toEqual([
      expect.stringContaining('image/tiff'),
      expect.stringContaining('audio/wav'),
      '[resource file:///a.txt (text/plain)]\nbody',
      expect.stringContaining('binary resource file:///b.bin'),
      '[resource link: file:///c "c"]',
    ]);
  });
});
