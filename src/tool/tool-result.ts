/**
 * Building tool_result blocks: text, images, text + images, and errors in the `<tool_use_error>` form the model is
 * trained to read. Every tool's `mapToolResultToToolResultBlockParam` should end in one of these.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ToolResultBlockParam } from './tool.js';

export type ImageMediaType = Anthropic.Messages.Base64ImageSource['media_type'];
export type ToolResultContentBlock = Anthropic.Messages.TextBlockParam | Anthropic.Messages.ImageBlockParam;

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

export function isImageMediaType(value: string): value is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(value);
}

export function textBlock(text: string): Anthropic.Messages.TextBlockParam {
  return { type: 'text', text };
}

export function imageBlock(base64: string, mediaType: ImageMediaType): Anthropic.Messages.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', data: base64, media_type: mediaType } };
}

/** A tool_result block holding text. */
export function textToolResult(toolUseId: string, text: string): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content: text };
}

export function imageToolResult(toolUseId: string, base64: string, mediaType: ImageMediaType): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content: [imageBlock(base64, mediaType)] };
}

/** Several blocks in one result (e.g. a caption and an image); empty text blocks are dropped (the API rejects them). */
export function blocksToolResult(toolUseId: string, blocks: readonly ToolResultContentBlock[]): ToolResultBlockParam {
  const content = blocks.filter((b) => b.type !== 'text' || b.text.length > 0);
  return { type: 'tool_result', tool_use_id: toolUseId, content };
}

/** Wraps a message the way every failed call is reported: `is_error: true`, `<tool_use_error>…</tool_use_error>`. */
export function errorToolResult(toolUseId: string, message: string): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content: formatToolUseError(message), is_error: true };
}

/**
 * An error result whose text goes to the model as it is, without `<tool_use_error>`: Claude Code sends some failures
 * that way (a Read of a missing file, a Glob of a missing folder, a search ripgrep refused), and the model was trained
 * on those texts. A tool asks for it with `UnwrappedToolError` from `call()` or `unwrapped: true` in `validateInput`.
 */
export function unwrappedErrorToolResult(toolUseId: string, message: string): ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, content: message, is_error: true };
}

/** Marks an error thrown from `call()` whose message reaches the model unwrapped (see unwrappedErrorToolResult). */
export function isUnwrappedToolError(error: unknown): boolean {
  return error instanceof Error && (error as { unwrappedForModel?: unknown }).unwrappedForModel === true;
}

export function formatToolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/**
 * The mapping a tool gets when it does not write its own: strings as they are, nothing as a note the model can read,
 * everything else as pretty JSON (bigints as strings, cycles marked rather than thrown on).
 */
export function defaultMapToolResult(output: unknown, toolUseId: string): ToolResultBlockParam {
  if (typeof output === 'string') return textToolResult(toolUseId, output.length > 0 ? output : '(no output)');
  if (output === undefined || output === null) return textToolResult(toolUseId, '(no output)');
  return textToolResult(toolUseId, safeJson(output));
}

export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (v !== null && typeof v === 'object') {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    },
    2,
  );
}

/** The text of a tool_result's content, images counted as `[image]` (for logs, hooks and size checks). */
export function toolResultText(block: ToolResultBlockParam): string {
  const { content } = block;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}
