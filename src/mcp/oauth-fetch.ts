/**
 * Where an OAuth-protected MCP connection may send requests. The server names its authorization server (protected-
 * resource metadata), which names its endpoints (discovery, registration, token): a hostile server can point those at
 * addresses only this machine can reach — 127.0.0.1 services, the LAN router, a cloud's metadata service at
 * 169.254.169.254 — and toolgate would request them before the person sees anything (docs/security.md §7c). So a
 * request may go to a public address, or to an address of the server's own kind (a server on 127.0.0.1 may use an
 * authorization server on 127.0.0.1; one on the LAN, one on the LAN), or to the server's own host; never from https
 * down to http elsewhere. Names are judged as written (`localhost`/`*.localhost` are loopback) and then by every address
 * they resolve to: a public-looking name whose DNS answer is 127.0.0.1 or 169.254.169.254 is that kind of address. The
 * connection is not pinned to the address checked, so a name that answers differently a moment later (DNS rebinding
 * with a zero TTL) is the residue §7c names.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

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
 * Why `target`, named by a host name, may not be requested: `refusedTarget` asked again of each address the name
 * resolves to, as though the URL had spelled it. Undefined when every address may be requested.
 */
async function refusedByAddress(server: URL, target: URL, resolve: ResolveAll): Promise<string | undefined> {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (target.hostname === server.hostname || isIP(host) !== 0 || hostKind(host) !== 'public') return undefined;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return `its name does not resolve (${error instanceof Error ? error.message : String(error)})`;
  }
  if (addresses.length === 0) return 'its name resolves to no address';
  for (const address of addresses) {
    const as = new URL(target.href);
    as.hostname = isIP(address) === 6 ? `[${address}]` : address;
    const why = refusedTarget(server, as);
    if (why !== undefined) return `${target.hostname} resolves to ${address}: ${why}`;
  }
  return undefined;
}

/**
 * `inner` (fetch), refusing what `refusedTarget` refuses for the MCP server at `serverUrl` — for a host name, for each
 * address it resolves to — before anything is sent.
 */
export function guardedOAuthFetch(serverUrl: string, inner: Fetch = fetch, resolve: ResolveAll = resolveAll): Fetch {
  const server = new URL(serverUrl);
  return async (url, init) => {
    const target = new URL(url);
    const why = refusedTarget(server, target) ?? (await refusedByAddress(server, target, resolve));
    if (why !== undefined) throw new Error(`Refused to request ${target.origin} for the MCP server at ${server.origin}: ${why} (docs/security.md §7c).`);
    return inner(url, init);
  };
}
