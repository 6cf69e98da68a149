/**
 * WebFetch domain rules: `WebFetch(domain:example.com)` names one host; `domain:*.example.com` names its subdomains
 * (not the apex); any other `*` stays inside one label. Hosts compare case-insensitively, without a trailing dot, in
 * their ASCII (punycode) form.
 */
import { domainToASCII } from 'node:url';

export type HostResult = { ok: true; host: string } | { ok: false; reason: string };

/** The host a URL fetches from, normalised; a URL we cannot parse is reported, never guessed. */
export function hostOfUrl(url: unknown): HostResult {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, reason: 'no url given' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: `cannot parse url ${JSON.stringify(url.slice(0, 200))}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, reason: `unsupported scheme ${parsed.protocol} in ${JSON.stringify(url.slice(0, 200))}` };
  }
  const host = normaliseHost(parsed.hostname);
  if (host.length === 0) return { ok: false, reason: `no host in ${JSON.stringify(url.slice(0, 200))}` };
  return { ok: true, host };
}

function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}

/** The domain pattern of a rule's content (`domain:*.example.com` → `*.example.com`), or undefined. */
export function domainPatternOf(ruleContent: string): string | undefined {
  if (!ruleContent.startsWith('domain:')) return undefined;
  const raw = ruleContent.slice('domain:'.length).trim();
  if (raw.length === 0) return undefined;
  const labels = normaliseHost(raw)
    .split('.')
    .map((label) => (label.includes('*') || /^[\x20-\x7e]*$/.test(label) ? label : domainToASCII(label) || label));
  return labels.join('.');
}

export function hostMatchesDomainPattern(host: string, pattern: string): boolean {
  if (pattern === '*') return true;
  const hostLabels = host.split('.');
  let patLabels = pattern.split('.');
  if (patLabels[0] === '*' && patLabels.length > 1) {
    // Leading `*.`: one or more labels in front of the rest (subdomains only, not the apex).
    patLabels = patLabels.slice(1);
    if (hostLabels.length <= patLabels.length) return false;
    return labelsMatch(hostLabels.slice(hostLabels.length - patLabels.length), patLabels);
  }
  return hostLabels.length === patLabels.length && labelsMatch(hostLabels, patLabels);
}

function labelsMatch(host: readonly string[], pat: readonly string[]): boolean {
  for (let i = 0; i < pat.length; i++) {
    const p = pat[i]!;
    const h = host[i]!;
    if (!p.includes('*')) {
      if (p !== h) return false;
      continue;
    }
    const re = new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`);
    if (!re.test(h)) return false;
  }
  return true;
}
