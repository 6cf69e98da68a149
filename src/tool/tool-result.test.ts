import { describe, expect, it } from 'vitest';
import {
  blocksToolResult,
  defaultMapToolResult,
  errorToolResult,
  imageBlock,
  imageToolResult,
  textBlock,
  textToolResult,
  toolResultText,
} from './tool-result.js';

describe('tool_result shapes', () => {
  it('text', () => expect(textToolResult('t1', 'hello')).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'hello' }));
  it('image (base64 + media type)', () =>
    expect(imageToolResult('t1', 'AAAA', 'image/png')).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: [{ type: 'image', source: { type: 'base64', data: 'AAAA', media_type: 'image/png' } }],
    }));
  it('text + image, dropping empty text blocks', () => {
    const r = blocksToolResult('t1', [textBlock('caption'), textBlock(''), imageBlock('BBBB', 'image/jpeg')]);
    expect(r.content).toEqual([
      { type: 'text', text: 'caption' },
      { type: 'image', source: { type: 'base64', data: 'BBBB', media_type: 'image/jpeg' } },
    ]);
    expect(toolResultText(r)).toBe('caption\n[image]');
  });
  it('error', () =>
    expect(errorToolResult('t1', 'File does not exist.')).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: '<tool_use_error>File does not exist.</tool_use_error>',
      is_error: true,
    }));
});

describe('defaultMapToolResult', () => {
  it('passes strings through', () => expect(defaultMapToolResult('abc', 'x').content).toBe('abc'));
  it('says so when there is nothing', () => {
    expect(defaultMapToolResult('', 'x').content).toBe('(no output)');
    expect(defaultMapToolResult(undefined, 'x').content).toBe('(no output)');
    expect(defaultMapToolResult(null, 'x').content).toBe('(no output)');
  });
  it('renders objects as JSON, surviving bigints and cycles', () => {
    const o: Record<string, unknown> = { n: 10n, list: [1, 2] };
    o.self = o;
    expect(defaultMapToolResult(o, 'x').content).toBe('{\n  "n": "10",\n  "list": [\n    1,\n    2\n  ],\n  "self": "[Circular]"\n}');
  });
});
