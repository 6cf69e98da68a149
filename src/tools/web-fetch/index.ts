/**
 * WebFetch: a page, converted to text, then answered about by a small model through the runtime's client (or, with
 * no client, returned in pages). Redirects within the host are followed; to another host the model is told the new
 * URL. Beyond Claude Code: loopback, private, link-local and metadata addresses — of the host as named, as resolved,
 * and on every hop — need a person's yes unless a `WebFetch(domain:…)` allow rule names that host.
 */
import { MODEL_ALIASES, resolveModel, smallFastModel } from '../../tool/models.js';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import * as z from 'zod';
import { domainPatternOf, hostMatchesDomainPattern } from '../../permissions/domains.js';
import { observedAsync, type AsyncQuestion } from '../../permissions/observed-fs.js';
import { buildTool } from '../../tool/build-tool.js';
import type { PermissionAskDecision, PermissionResult } from '../../tool/permission-types.js';
import type { AssistantMessage, CanUseToolFn } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import '../shared/questions.js';
import { bareHost, classifyAddress, isLoopbackHost, type AddressKind } from './address-policy.js';
import { bodyToText, contentKindOf } from './convert.js';
import { fetchOnce, PageTooLargeError } from './fetch-page.js';
import { extractionPrompt, WEB_FETCH_TOOL_NAME, webFetchPrompt } from './prompt.js';

export { WEB_FETCH_TOOL_NAME };
export const WEB_FETCH_TIMEOUT_MS = 60_000;
export const WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const WEB_FETCH_MAX_REDIRECTS = 10;
/** Characters of page text handed to the extraction model. */
export const WEB_FETCH_EXTRACT_CHARS = 100_000;
/** Characters of page text returned per call without a model. */
export const WEB_FETCH_PAGE_CHARS = 40_000;
/** The model WebFetch's prompt goes to by default: the small, fast model of the one table (haiku). */
export const WEB_FETCH_DEFAULT_MODEL = MODEL_ALIASES.haiku;

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    /** The model WebFetch's prompt goes to (an alias or an id; default: `ANTHROPIC_SMALL_FAST_MODEL`, else haiku). */
    readonly webFetchModel?: string;
    /** Cache lifetime in milliseconds (default 15 minutes; `CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS` also works). */
    readonly webFetchCacheTtlMs?: number;
  }
}

export const webFetchInputSchema = z.strictObject({
  url: z.string().describe('The URL to fetch'),
  prompt: z.string().describe('What to find out from the page'),
  offset: z.number().int().min(0).optional().describe('Character position to continue a long page from'),
});
export type WebFetchInput = z.infer<typeof webFetchInputSchema>;

export interface WebFetchOutput {
  bytes: number;
  code: number;
  codeText: string;
  result: string;
  durationMs: number;
  url: string;
}

interface CachedPage {
  readonly url: string;
  readonly code: number;
  readonly codeText: string;
  readonly bytes: number;
  readonly text: string;
}

const DEFAULT_TTL_MS = 15 * 60_000;
const cache = new LRUCache<string, CachedPage>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (page) => Math.max(1, page.text.length),
  ttl: DEFAULT_TTL_MS,
});

/** Forgets every cached page (tests; a long-running embedder that wants fresh pages). */
export function clearWebFetchCache(): void {
  cache.clear();
}

function cacheTtl(context: ToolUseContext): number {
  const fromEnv = Number(process.env.CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS);
  return context.options.settings.webFetchCacheTtlMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TTL_MS);
}

/** The URL as fetched: parsed, http upgraded to https except on loopback (no TLS there). */
export function normaliseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`Invalid URL: ${JSON.stringify(raw.slice(0, 200))}. Give a full URL such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new Error('URLs with credentials in them are not fetched.');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) url.protocol = 'https:';
  return url;
}

function hostAllowedByRule(context: ToolUseContext, hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase().replace(/\.+$/, '');
  return context.getAppState().toolPermissionContext.alwaysAllowRules.some((rule) => {
    if (rule.ruleValue.toolName !== WEB_FETCH_TOOL_NAME || rule.ruleValue.ruleContent === undefined) return false;
    const pattern = domainPatternOf(rule.ruleValue.ruleContent);
    // A catch-all `domain:*` is no statement about inward addresses: only a rule that names the host counts.
    return pattern !== undefined && pattern !== '*' && hostMatchesDomainPattern(host, pattern);
  });
}

// What the permission check resolved, for 30 s: a name asked about again and again (a batch of `toolgate check`,
// a model fetching several pages of one site) is looked up once, and an unanswered lookup — no network: about
// 150 ms to fail — is not paid per request. The fetch itself still resolves afresh, on every hop.
const checkLookups = new LRUCache<string, Promise<LookupAddress[]>>({ max: 256, ttl: 30_000 });

function resolveHostForCheck(hostname: string): Promise<LookupAddress[]> {
  let found = checkLookups.get(hostname);
  if (!found) {
    found = resolveHost(hostname);
    found.catch(() => undefined); // kept (a failure too) for the TTL; each caller sees the rejection itself
    checkLookups.set(hostname, found);
  }
  return found;
}

/**
 * The check's lookup as a fact a recorded decision depends on (permissions/observed-fs.ts): the addresses in the
 * resolver's order (the first inward one is named in the question). A reused decision asks it again, as a new one would.
 */
const CHECK_LOOKUP: AsyncQuestion = {
  ask: resolveHostForCheck,
  fact: (answer) => (answer as LookupAddress[]).map((a) => `${a.family}/${a.address}`).join(' '),
};

async function resolveHost(hostname: string): Promise<LookupAddress[]> {
  const host = bareHost(hostname);
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family }];
  const { lookup } = await import('node:dns/promises');
  return lookup(host, { all: true, verbatim: true });
}

function inwardKind(addresses: readonly LookupAddress[]): { kind: AddressKind; address: string } | undefined {
  for (const a of addresses) {
    const kind = classifyAddress(a.address);
    if (kind !== 'public') return { kind, address: a.address };
  }
  return undefined;
}

function inwardReason(host: string, found: { kind: AddressKind; address: string }): string {
  const where = host === found.address ? found.address : `${host} (${found.address})`;
  return `WebFetch would reach a ${found.kind} address: ${where}. Such addresses are only fetched with approval or a WebFetch(domain:${host}) allow rule`;
}

// URLs whose inward target the permission check already asked about, per turn (abort controller): the call does
// not ask a second time. A later check that finds the target public removes the entry (DNS may have changed).
const askedAtCheck = new WeakMap<AbortController, Set<string>>();

function sameHost(a: URL, b: URL): boolean {
  const strip = (h: string) => h.toLowerCase().replace(/^www\./, '');
  return a.protocol === b.protocol && a.port === b.port && !b.username && !b.password && strip(a.hostname) === strip(b.hostname);
}

async function approveInward(
  url: URL,
  addresses: readonly LookupAddress[],
  input: WebFetchInput,
  context: ToolUseContext,
  canUseTool: CanUseToolFn,
  parent: AssistantMessage,
): Promise<void> {
  const found = inwardKind(addresses);
  if (!found || hostAllowedByRule(context, url.hostname)) return;
  const asked = askedAtCheck.get(context.abortController);
  if (asked?.delete(url.href)) return;
  const reason = inwardReason(bareHost(url.hostname), found);
  const ask: PermissionAskDecision = { behavior: 'ask', message: reason, decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: false } };
  const decision = await canUseTool(WebFetchTool, { ...input, url: url.href }, context, parent, context.toolUseId ?? `webfetch-${Date.now().toString(36)}`, ask);
  if (decision.behavior !== 'allow') throw new Error(decision.behavior === 'deny' ? decision.message : reason);
}

async function sideCall(context: ToolUseContext, url: string, text: string, request: string): Promise<string> {
  const client = context.services.modelClient!;
  const response = await client.messages.create(
    {
      model: context.options.settings.webFetchModel !== undefined ? resolveModel(context.options.settings.webFetchModel) : smallFastModel(),
      max_tokens: 4096,
      messages: [{ role: 'user', content: extractionPrompt(url, text, request) }],
    },
    { signal: context.abortController.signal },
  );
  return response.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() || '(the model returned no text)';
}

function pageOf(text: string, offset: number): string {
  if (offset >= text.length && text.length > 0) return `(offset ${offset} is past the end of the page, which has ${text.length} characters)`;
  const slice = text.slice(offset, offset + WEB_FETCH_PAGE_CHARS);
  const end = offset + slice.length;
  const more = end < text.length ? `\n\n[Characters ${offset}-${end} of ${text.length}. Call WebFetch again with offset ${end} for more.]` : '';
  return slice + more;
}

export const WebFetchTool = buildTool<typeof webFetchInputSchema, WebFetchOutput>({
  name: WEB_FETCH_TOOL_NAME,
  asyncSafe: true,
  searchHint: 'fetch url web page read documentation http',
  inputSchema: webFetchInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  permissionTraits: { kind: 'fetch', urlField: 'url' },
  prompt: async () => webFetchPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => `${input.url}: ${input.prompt}`,
  async validateInput(input) {
    try {
      normaliseUrl(input.url);
    } catch (error) {
      return { result: false, message: (error as Error).message, errorCode: 1 };
    }
    if (input.url.length > 2000) return { result: false, message: 'The URL is longer than 2,000 characters.', errorCode: 2 };
    return { result: true };
  },

  async checkPermissions(input, context): Promise<PermissionResult<WebFetchInput>> {
    const url = normaliseUrl(input.url);
    const allow: PermissionResult<WebFetchInput> = { behavior: 'allow', updatedInput: input };
    if (hostAllowedByRule(context, url.hostname)) return allow;
    let addresses: LookupAddress[];
    try {
      addresses = await observedAsync(CHECK_LOOKUP, url.hostname);
    } catch {
      return allow; // the fetch will fail to resolve too, and say so
    }
    const found = inwardKind(addresses);
    let asked = askedAtCheck.get(context.abortController);
    if (!found) {
      asked?.delete(url.href);
      return allow;
    }
    if (!asked) askedAtCheck.set(context.abortController, (asked = new Set()));
    asked.add(url.href);
    const reason = inwardReason(bareHost(url.hostname), found);
    return { behavior: 'ask', message: reason, decisionReason: { layer: 'safetyCheck', reason, classifierApprovable: false } };
  },

  async call(input, context, canUseTool, parentMessage) {
    const started = Date.now();
    let url = normaliseUrl(input.url);
    const offset = input.offset ?? 0;
    let page = cache.get(url.href);
    if (!page) {
      const signal = AbortSignal.any([context.abortController.signal, AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS)]);
      const headers = { accept: 'text/markdown, text/html, */*', 'user-agent': 'Claude-User (toolgate WebFetch)' };
      for (let hop = 0; ; hop++) {
        if (hop > WEB_FETCH_MAX_REDIRECTS) throw new Error(`More than ${WEB_FETCH_MAX_REDIRECTS} redirects; stopped at ${url.href}.`);
        const addresses = await resolveHost(url.hostname).catch((error: Error) => {
          throw new Error(`Cannot resolve ${url.hostname}: ${error.message}`);
        });
        await approveInward(url, addresses, input, context, canUseTool, parentMessage);
        let response;
        try {
          response = await fetchOnce(url, { addresses, signal, maxBytes: WEB_FETCH_MAX_BYTES, headers });
        } catch (error) {
          if (error instanceof PageTooLargeError) throw new Error(`${url.href} was not fetched: ${error.message}.`);
          if (signal.aborted && !context.abortController.signal.aborted) throw new Error(`Fetching ${url.href} timed out after ${WEB_FETCH_TIMEOUT_MS / 1000} s.`);
          throw error;
        }
        const location = response.headers.location;
        if (response.status >= 300 && response.status < 400 && location) {
          const next = new URL(location, url);
          if (sameHost(url, next)) {
            url = next;
            continue;
          }
          const text =
            `The page redirects to another host (${response.status}): ${url.href} → ${next.href}. It was not followed. ` +
            `To fetch it, call WebFetch again with url "${next.href}".`;
          return { data: { bytes: 0, code: response.status, codeText: response.statusText, result: text, durationMs: Date.now() - started, url: url.href } };
        }
        const contentType = String(response.headers['content-type'] ?? '');
        const kind = contentKindOf(contentType, response.body);
        if (!kind) throw new Error(`${url.href} returned ${contentType || 'an unknown content type'}, which is not text, HTML or PDF.`);
        const text = await bodyToText(kind, response.body, contentType);
        page = { url: url.href, code: response.status, codeText: response.statusText, bytes: response.body.length, text };
        cache.set(normaliseUrl(input.url).href, page, { ttl: cacheTtl(context) });
        break;
      }
    }
    const result = context.services.modelClient
      ? await sideCall(context, page.url, page.text.slice(offset, offset + WEB_FETCH_EXTRACT_CHARS), input.prompt)
      : pageOf(page.text, offset);
    return { data: { bytes: page.bytes, code: page.code, codeText: page.codeText, result, durationMs: Date.now() - started, url: page.url } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: data.code >= 400 ? `HTTP ${data.code} ${data.codeText}\n\n${data.result}` : data.result,
  }),
  renderToolUseMessage: (input) => String(input.url ?? ''),
  renderToolResultMessage: (data) => [`${data.code} ${data.codeText}`.trim(), `${data.bytes} bytes`, `${(data.durationMs / 1000).toFixed(1)}s`].join(' · '),
  loadViews: () => import('./render.js').then((m) => m.webFetchViews),
});
