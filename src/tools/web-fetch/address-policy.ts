/**
 * Which addresses a fetch must not reach without a person's say-so: loopback, private (RFC 1918, unique-local),
 * link-local (where cloud metadata services live), carrier-grade NAT, "this network", and the metadata addresses
 * clouds use outside those ranges. Checked on the addresses a host resolves to, not on its name, so a public-looking
 * name that resolves inward is caught too.
 */
import { BlockList, isIP } from 'node:net';

/** The inward ranges, built on the first address checked: node:net's BlockList costs ~3 ms to load, at every start. */
let inward: BlockList | undefined;
function inwardRanges(): BlockList {
  if (inward !== undefined) return inward;
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
  ] as const) {
    list.addSubnet(net, bits, 'ipv4');
  }
  list.addAddress('168.63.129.16', 'ipv4'); // Azure's host/metadata endpoint
  for (const [net, bits] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
  ] as const) {
    list.addSubnet(net, bits, 'ipv6');
  }
  return (inward = list);
}

export type AddressKind = 'loopback' | 'private' | 'link-local' | 'metadata' | 'public';

export function classifyAddress(address: string): AddressKind {
  const family = isIP(address);
  if (family === 0) return 'private'; // not an address: fail closed
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return classifyAddress(mapped[1]!);
    if (address === '::1') return 'loopback';
    if (/^fe[89ab]/i.test(address)) return 'link-local';
    return inwardRanges().check(address, 'ipv6') ? 'private' : 'public';
  }
  if (address.startsWith('127.')) return 'loopback';
  if (address === '169.254.169.254' || address === '168.63.129.16' || address === '100.100.100.200') return 'metadata';
  if (address.startsWith('169.254.')) return 'link-local';
  return inwardRanges().check(address, 'ipv4') ? 'private' : 'public';
}

/** `127.0.0.1`, `[::1]` (URL form) or a name: the bare host. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Hosts that are loopback by name or address (no TLS there, so no http→https upgrade). */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && classifyAddress(host) === 'loopback';
}
