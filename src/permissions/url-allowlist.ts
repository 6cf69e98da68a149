/**
 * URL allowlists (`allowedHttpHookUrls`): a URL as a client will send it, and whether a list's pattern takes it. Kept
 * in the permissions layer with the other matchers: the hooks layer applies the policy and matches nothing itself.
 */

/**
 * Whether `url` matches `pattern`, where `*` matches any run of characters and the rest is literal — except that a `*`
 * before the pattern's `://` stays in the scheme and one in its host part (up to the next `/`) stays in the host: no
 * `/`, `?`, `#`, `@` or `\\`. Else `http://*.hooks.example/*` took `http://elsewhere/x.hooks.example/` (red team,
 * docs/security.md §11). A `*` that ends the pattern still matches anything (`https://*`, `http://127.0.0.1:*`).
 */
export function urlMatchesPattern(url: string, pattern: string): boolean {
  const scheme = pattern.indexOf('://');
  const slash = scheme === -1 ? -1 : pattern.indexOf('/', scheme + 3);
  const hostEnd = slash === -1 ? pattern.length : slash;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== '*') source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (scheme === -1 || i === pattern.length - 1 || i >= hostEnd) source += '.*';
    else source += i < scheme ? '[a-zA-Z0-9+.-]*' : '[^/?#@\\\\]*';
  }
  return new RegExp(`^${source}$`, 's').test(url);
}

/**
 * The URL normalised as a client sends it (`new URL(url).href`) and whether it carries a user name or password, or
 * undefined when it cannot be read.
 */
export function normalizedUrl(url: string): { readonly href: string; readonly hasCredentials: boolean } | undefined {
  try {
    const u = new URL(url);
    return { href: u.href, hasCredentials: u.username !== '' || u.password !== '' };
  } catch {
    return undefined;
  }
}
