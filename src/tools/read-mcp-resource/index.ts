/**
 * ReadMcpResource: one resource of an MCP server. Text parts come back as text, image parts as images; other binary
 * parts are written under the session folder and named by path (a model cannot read base64 usefully).
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { blocksToolResult, imageBlock, isImageMediaType, textBlock, type ToolResultContentBlock } from '../../tool/tool-result.js';
import '../shared/mcp-resource-service.js';
import { READ_MCP_RESOURCE_TOOL_NAME, readMcpResourcePrompt } from './prompt.js';

export const readMcpResourceInputSchema = z.strictObject({
  server: z.string().describe('The MCP server name'),
  uri: z.string().describe('The resource URI'),
});

export interface ReadMcpResourcePart {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  /** Image parts stay inline. */
  readonly image?: string;
  readonly blobSavedTo?: string;
  readonly bytes?: number;
}

export interface ReadMcpResourceData {
  readonly contents: readonly ReadMcpResourcePart[];
}

export const ReadMcpResourceTool = buildTool<typeof readMcpResourceInputSchema, ReadMcpResourceData>({
  name: READ_MCP_RESOURCE_TOOL_NAME,
  searchHint: 'read mcp server resource uri',
  inputSchema: readMcpResourceInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => readMcpResourcePrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => `${input.server} ${input.uri}`,
  validateInput: async (input, context) => {
    const service = context.services.mcpResources;
    if (!service) return { result: false, message: 'No MCP servers are configured in this session.', errorCode: 1 };
    if (!service.serverNames().includes(input.server)) {
      return { result: false, message: `No MCP server named "${input.server}". Servers: ${service.serverNames().join(', ') || '(none)'}`, errorCode: 2 };
    }
    return { result: true };
  },
  call: async (input, context) => {
    const service = context.services.mcpResources;
    if (!service) throw new Error('No MCP servers are configured in this session.');
    const parts = await service.readResource(input.server, input.uri, context.abortController.signal);
    const contents: ReadMcpResourcePart[] = [];
    for (const part of parts) {
      const mime = part.mimeType;
      if (part.text !== undefined) contents.push({ uri: part.uri, mimeType: mime, text: part.text });
      else if (part.blob !== undefined && mime !== undefined && isImageMediaType(mime)) contents.push({ uri: part.uri, mimeType: mime, image: part.blob });
      else if (part.blob !== undefined) {
        const bytes = Buffer.from(part.blob, 'base64');
        const dir = path.join(context.options.sessionDir, 'mcp-resources');
        await mkdir(dir, { recursive: true });
        const file = path.join(dir, `${createHash('sha256').update(part.uri).digest('hex').slice(0, 16)}${extensionFor(mime)}`);
        await writeFile(file, bytes);
        contents.push({ uri: part.uri, mimeType: mime, blobSavedTo: file, bytes: bytes.length });
      } else contents.push({ uri: part.uri, mimeType: mime, text: '' });
    }
    return { data: { contents } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => {
    const blocks: ToolResultContentBlock[] = [];
    for (const c of data.contents) {
      if (c.image !== undefined && c.mimeType !== undefined && isImageMediaType(c.mimeType)) blocks.push(imageBlock(c.image, c.mimeType));
      else if (c.blobSavedTo !== undefined) blocks.push(textBlock(`[${c.uri}: ${c.bytes ?? 0} bytes of ${c.mimeType ?? 'binary data'} saved to ${c.blobSavedTo}]`));
      else blocks.push(textBlock(data.contents.length > 1 ? `[${c.uri}]\n${c.text ?? ''}` : (c.text ?? '')));
    }
    if (blocks.length === 0 || blocks.every((b) => b.type === 'text' && b.text === '')) return { type: 'tool_result', tool_use_id: toolUseId, content: '(empty resource)' };
    return blocksToolResult(toolUseId, blocks);
  },
  renderToolUseMessage: (input) => `${input.server ?? ''} ${input.uri ?? ''}`.trim(),
  loadViews: () => import('./render.js').then((m) => m.readMcpResourceViews),
});

function extensionFor(mime: string | undefined): string {
  const known: Record<string, string> = { 'application/pdf': '.pdf', 'application/gzip': '.gz', 'application/zip': '.zip', 'application/json': '.json', 'text/plain': '.txt' };
  return (mime && known[mime]) ?? '.bin';
}
