/**
 * An MCP `tools/call` result as the model reads it: text as text, images as image blocks, embedded resources by
 * their text (or as images when they are one), resource links and audio as short notes, and `structuredContent`
 * always present — as its JSON when no text block already carries it (the spec's backwards-compatible copy).
 */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { imageBlock, isImageMediaType, textBlock, type ToolResultContentBlock } from '../tool/tool-result.js';
import type { ToolResultBlockParam } from '../tool/tool.js';

export interface McpToolOutput {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: Record<string, unknown>;
  /** The server's own error flag: the result goes back as `is_error`. */
  readonly isError?: boolean;
}

export function mcpContentToBlocks(output: McpToolOutput): ToolResultContentBlock[] {
  const blocks: ToolResultContentBlock[] = [];
  for (const item of output.content) blocks.push(...contentBlock(item));
  const structured = output.structuredContent;
  if (structured !== undefined && !carriesStructured(output.content, structured)) {
    blocks.push(textBlock(JSON.stringify(structured)));
  }
  return blocks;
}

export function mapMcpToolOutput(output: McpToolOutput, toolUseId: string): ToolResultBlockParam {
  const blocks = mcpContentToBlocks(output).filter((b) => b.type !== 'text' || b.text.length > 0);
  const content: ToolResultBlockParam['content'] =
    blocks.length === 0 ? '(no output)' : blocks.length === 1 && blocks[0]!.type === 'text' ? blocks[0]!.text : blocks;
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(output.isError === true ? { is_error: true } : {}) };
}

function contentBlock(item: ContentBlock): ToolResultContentBlock[] {
  switch (item.type) {
    case 'text':
      return [textBlock(item.text)];
    case 'image':
      return isImageMediaType(item.mimeType)
        ? [imageBlock(item.data, item.mimeType)]
        : [textBlock(`[image of type ${item.mimeType} (${approxBytes(item.data)} bytes) not shown: the model accepts JPEG, PNG, GIF and WebP]`)];
    case 'audio':
      return [textBlock(`[audio of type ${item.mimeType} (${approxBytes(item.data)} bytes) not shown]`)];
    case 'resource': {
      const r = item.resource;
      const mime = r.mimeType ?? '';
      if ('text' in r && typeof r.text === 'string') return [textBlock(`[resource ${r.uri}${mime ? ` (${mime})` : ''}]\n${r.text}`)];
      if ('blob' in r && typeof r.blob === 'string') {
        if (isImageMediaType(mime)) return [textBlock(`[resource ${r.uri}]`), imageBlock(r.blob, mime)];
        return [textBlock(`[binary resource ${r.uri}${mime ? ` (${mime})` : ''}, ${approxBytes(r.blob)} bytes, not shown]`)];
      }
      return [textBlock(`[resource ${r.uri}]`)];
    }
    case 'resource_link': {
      const extra = [item.mimeType, item.description].filter((x): x is string => typeof x === 'string' && x.length > 0);
      return [textBlock(`[resource link: ${item.uri}${item.name ? ` "${item.name}"` : ''}${extra.length > 0 ? ` — ${extra.join('; ')}` : ''}]`)];
    }
    default:
      return [textBlock(`[unsupported content of type ${JSON.stringify((item as { type?: unknown }).type)}]`)];
  }
}

/** True when a text block of the content is the structured content's JSON (any formatting). */
function carriesStructured(content: readonly ContentBlock[], structured: Record<string, unknown>): boolean {
  const want = canonical(structured);
  for (const item of content) {
    if (item.type !== 'text') continue;
    const t = item.text.trim();
    if (!t.startsWith('{')) continue;
    try {
      if (canonical(JSON.parse(t)) === want) return true;
    } catch {
      // not JSON
    }
  }
  return false;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function approxBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
