/**
 * URL allowlists (`allowedHttpHookUrls`): a URL as a client will send it, and whether a list's pattern takes it. Kept
 * in the permissions layer with the other matchers: the hooks layer applies the policy and matches nothing itself.
 */

/** Whether `url` matches `pattern`, where `*` matches any run of characters and the rest is literal. */
export function urlMatchesPattern(url: string, pattern: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return re.test(url);
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
