/**
 * Where an OAuth-protected MCP connection may send requests. The server names its authorization server (protected-
 * resource metadata), which names its endpoints (discovery, registration, token): a hostile server can point those at
 * addresses only this machine can reach — 127.0.0.1 services, the LAN router, a cloud's metadata service at
 * 169.254.169.254 — and toolgate would request them before the person sees anything (docs/security.md §7c). So a
 * request may go to a public address, or to an address of the server's own kind (a server on 127.0.0.1 may use an
 * authorization server on 127.0.0.1; one on the LAN, one on the LAN), or to the server's own host; never from https
 * down to http elsewhere. Names are judged as written (`localhost`/`*.localhost` are loopback) and then by every address
 * they resolve to: a public-looking name whose DNS answer is 127.0.0.1 or 169.254.169.254 is that kind of address, and
 * the connection goes to those checked addresses only (pinned-fetch.ts), so a name that answers differently a moment
 * later (DNS rebinding with a zero TTL) changes nothing. Redirects are followed here, each target judged anew.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { pinnedFetch, type PinnedTls } from './pinned-fetch.js';

export type HostKind = 'loopback' | 'private' | 'link-local' | 'public';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The kind of address a URL's host names (`URL.hostname`: IPv6 in brackets, IPv4 already in dotted form). */
export function hostKind(hostname: string): HostKind {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  const family = isIP(host);
  if (family === 4) return ipv4Kind(host.split('.').map(Number));
  if (family === 6) return ipv6Kind(host);
  return 'public';
}

function ipv4Kind([a = 0, b = 0]: number[]): HostKind {
  if (a === 127 || a === 0) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  return 'public';
}

function ipv6Kind(host: string): HostKind {
  if (host === '::1' || host === '::') return 'loopback';
  // IPv4-mapped (`::ffff:7f00:1`, as the URL parser writes it, or `::ffff:127.0.0.1`): the IPv4 address decides.
  const mapped = /^::ffff:(?:([0-9a-f]{1,4}):([0-9a-f]{1,4})|(\d+\.\d+\.\d+\.\d+))$/.exec(host);
  if (mapped) {
    if (mapped[3]) return ipv4Kind(mapped[3].split('.').map(Number));
    const hi = parseInt(mapped[1]!, 16);
    return ipv4Kind([hi >> 8, hi & 0xff]);
  }
  const first = parseInt(host.split(':')[0] || '0', 16);
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xfe00) === 0xfc00) return 'private';
  return 'public';
}

/** Why `target` may not be requested for the server at `server`, or undefined when it may. */
export function refusedTarget(server: URL, target: URL): string | undefined {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return `${target.protocol} is not an OAuth address`;
  if (target.hostname === server.hostname) return undefined;
  const kind = hostKind(target.hostname);
  if (kind !== 'public' && kind !== hostKind(server.hostname)) return `it is a ${kind} address and the server ${server.host} is not`;
  if (server.protocol === 'https:' && target.protocol === 'http:' && kind !== 'loopback') return 'the server is https and this address is plain http';
  return undefined;
}

/** Every address a name resolves to (a name that does not resolve is refused: fail closed). */
export type ResolveAll = (hostname: string) => Promise<string[]>;

const resolveAll: ResolveAll = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The addresses `target`'s host NAME resolves to, each asked of `refusedTarget` as though the URL had spelled it; the
 * request is then pinned to them. Undefined (nothing to pin) for an address, `localhost`, or the server's own host.
 */
async function judgedAddresses(server: URL, target: URL, resolve: ResolveAll): Promise<{ why?: string; addresses?: string[] }> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (target.hostname === server.hostname || isIP(host) !== 0 || hostKind(host) !== 'public') return {};
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return { why: `its name does not resolve (${error instanceof Error ? error.message : String(error)})` };
  }
  if (addresses.length === 0) return { why: 'its name resolves to no address' };
  for (const address of addresses) {
    const as = new URL(target.href);
    as.hostname = isIP(address) === 6 ? `[${address}]` : address;
    const why = refusedTarget(server, as);
    if (why !== undefined) return { why: `${target.hostname} resolves to ${address}: ${why}` };
  }
  return { addresses };
}

// As fetch's own limit; each hop is judged (and resolved, and pinned) anew.
const MAX_REDIRECTS = 20;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/**
 * The request fetch makes for a redirect: 301/302 turn a POST, and 303 anything but GET/HEAD, into a body-less GET;
 * another origin does not get the caller's credentials (fetch's own rules, kept now that the guard follows).
 */
function redirectedInit(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  let next: RequestInit = { ...init, headers };
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
    next = { ...next, method: 'GET', body: null };
    for (const name of ['content-type', 'content-encoding', 'content-language', 'content-location']) headers.delete(name);
  } else if (init.body instanceof ReadableStream) {
    throw new TypeError(`fetch failed: a streamed body cannot follow a ${status} redirect`);
  }
  if (from.origin !== to.origin) for (const name of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(name);
  return next;
}

function refusal(server: URL, target: URL, why: string): Error {
  return new Error(`Refused to request ${target.origin} for the MCP server at ${server.origin}: ${why} (docs/security.md §7c).`);
}

/**
 * fetch, refusing what `refusedTarget` refuses for the MCP server at `serverUrl` — for a host name, for each address it
 * resolves to — before anything is sent. A name so judged is connected to those addresses only (`pinnedFetch`); other
 * targets go to `inner`. Redirects are never followed inside a fetch: the guard follows them (unless the caller asked
 * for `manual` or `error`), each target judged like the first.
 */
export function guardedOAuthFetch(serverUrl: string, inner: Fetch = fetch, resolve: ResolveAll = resolveAll, tls: PinnedTls = {}): Fetch {
  const server = new URL(serverUrl);
  const once = async (target: URL, init: RequestInit): Promise<Response> => {
    const refused = refusedTarget(server, target);
    if (refused !== undefined) throw refusal(server, target, refused);
    const { why, addresses } = await judgedAddresses(server, target, resolve);
    if (why !== undefined) throw refusal(server, target, why);
    const manual = { ...init, redirect: 'manual' as const };
    return addresses ? pinnedFetch(target, manual, addresses, tls) : inner(target, manual);
  };
  return async (url, init = {}) => {
    let target = new URL(url);
    let current = init;
    for (let hop = 0; ; hop++) {
      const response = await once(target, current);
      const location = REDIRECT_STATUS.has(response.status) ? response.headers.get('location') : null;
      if (location === null || init.redirect === 'manual') return response;
      await response.body?.cancel().catch(() => {});
      if (init.redirect === 'error') throw new TypeError(`fetch failed: ${target.origin} redirected and redirect is 'error'`);
      if (hop === MAX_REDIRECTS) throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${new URL(url).origin}`);
      const next = new URL(location, target);
      current = redirectedInit(current, response.status, target, next);
      target = next;
    }
  };
}
