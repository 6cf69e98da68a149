/** Page bodies to text the model can read: HTML to Markdown (turndown), PDF to text (unpdf), text as it is. */
import TurndownService from 'turndown';
import { extractText, getDocumentProxy } from 'unpdf';

let turndown: TurndownService | undefined;

function htmlToMarkdown(html: string): string {
  turndown ??= new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  // Scripts and styles are code for the browser, not content.
  turndown.remove(['script', 'style', 'noscript', 'template']);
  return turndown.turndown(html);
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
