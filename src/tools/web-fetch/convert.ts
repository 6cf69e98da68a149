/**
 * Page bodies to text the model can read: HTML to Markdown (turndown), PDF to text (unpdf), text as it is. Both
 * converters are imported on first use: every process that lists the tools (an agent, `mcp serve`) loads this
 * module, and PDF.js alone is several megabytes that only a fetched PDF needs.
 */
import type TurndownService from 'turndown';

let turndown: Promise<TurndownService> | undefined;

async function htmlToMarkdown(html: string): Promise<string> {
  turndown ??= import('turndown').then(({ default: Turndown }) => {
    const service = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
    // Scripts and styles are code for the browser, not content.
    service.remove(['script', 'style', 'noscript', 'template']);
    return service;
  });
  turndown.catch(() => (turndown = undefined));
  return (await turndown).turndown(html);
}

export type ContentKind = 'html' | 'pdf' | 'text';

export function contentKindOf(contentType: string, body: Uint8Array): ContentKind | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/pdf' || (type === '' && Buffer.from(body.subarray(0, 5)).toString('latin1') === '%PDF-')) return 'pdf';
  if (type.startsWith('text/') || /[+/](json|xml|javascript|yaml|toml|markdown)$/.test(type) || type === '') return 'text';
  return undefined;
}

export async function bodyToText(kind: ContentKind, body: Uint8Array, contentType: string): Promise<string> {
  if (kind === 'pdf') {
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(body));
    const { text } = await extractText(pdf, { mergePages: true });
    return text;
  }
  const charset = /charset=([^;]+)/i.exec(contentType)?.[1]?.trim().toLowerCase() ?? 'utf-8';
  let decoded: string;
  try {
    decoded = new TextDecoder(charset).decode(body);
  } catch {
    decoded = new TextDecoder('utf-8').decode(body);
  }
  return kind === 'html' ? htmlToMarkdown(decoded) : decoded;
}
