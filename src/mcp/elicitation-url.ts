/**
 * What a (possibly hostile) MCP server may ask of the client, checked before anyone sees it:
 * - an elicitation request: form mode as sent; URL mode only for a plain http(s) URL with no credentials in it and no
 *   control characters (a `javascript:`/`file:` URL, or escape sequences that would redraw the terminal, are refused
 *   without being shown). The URL is shown to the person, never opened for them.
 * - the roots the client reveals: the session's working folders as `file://` URIs, nothing else.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpElicitationRequest } from './connection.js';

/** C0/C1 control characters and DEL: a terminal acts on them. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_URL = 2_048;

/** A server's text as the person may be shown it: each control character spelled out (`\\u001b`), never sent raw. */
export function printable(text: string): string {
  return text.replace(new RegExp(CONTROL.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A URL the person may be shown: http(s), no user:password part, no control characters, of reasonable length. */
export function showableUrl(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL || CONTROL.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

/** The elicitation as toolgate hands it on, or undefined when it must be declined unseen. */
export function elicitationOf(serverName: string, params: unknown, signal: AbortSignal): McpElicitationRequest | undefined {
  const p = (params ?? {}) as { mode?: unknown; message?: unknown; requestedSchema?: unknown; url?: unknown; elicitationId?: unknown };
  const message = typeof p.message === 'string' ? p.message : '';
  if (p.mode === 'url') {
    const url = showableUrl(p.url);
    if (!url) return undefined;
    return { serverName, message, mode: 'url', url, ...(typeof p.elicitationId === 'string' ? { elicitationId: p.elicitationId } : {}), signal };
  }
  const schema = p.requestedSchema !== null && typeof p.requestedSchema === 'object' ? { requestedSchema: p.requestedSchema as Record<string, unknown> } : {};
  return { serverName, message, mode: 'form', ...schema, signal };
}

/** The working folders as MCP roots (absolute, de-duplicated). */
export function rootsOf(folders: readonly string[]): { uri: string; name: string }[] {
  const seen = new Set<string>();
  const out: { uri: string; name: string }[] = [];
  for (const folder of folders) {
    const abs = path.resolve(folder);
    if (seen.has(abs)) continue;
    seen.add(abs);
    out.push({ uri: pathToFileURL(abs).href, name: path.basename(abs) || abs });
  }
  return out;
}
