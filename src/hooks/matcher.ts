/**
 * Claude Code's matcher syntax (reference A3): empty / `*` / absent match all; a string of only
 * `[A-Za-z0-9_ -,|]` is a list of exact names split on `|` or `,`; anything else is an unanchored JavaScript regex.
 */
const EXACT_LIST = /^[A-Za-z0-9_ ,|-]*$/;

export type CompiledMatcher = (toolName: string) => boolean;

const cache = new Map<string, CompiledMatcher>();

export function compileHookMatcher(matcher: string | undefined): CompiledMatcher {
  const key = matcher ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = compile(key);
  cache.set(key, compiled);
  return compiled;
}

/** Why a matcher cannot be compiled (invalid regex), or undefined when it is fine. */
export function hookMatcherError(matcher: string): string | undefined {
  if (matcher.trim() === '' || matcher.trim() === '*' || EXACT_LIST.test(matcher)) return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function matchesHookMatcher(matcher: string | undefined, toolName: string): boolean {
  return compileHookMatcher(matcher)(toolName);
}

function compile(matcher: string): CompiledMatcher {
  const trimmed = matcher.trim();
  if (trimmed === '' || trimmed === '*') return () => true;
  if (EXACT_LIST.test(matcher)) {
    const names = new Set(
      matcher
        .split(/[|,]/)
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    );
    return (toolName) => names.has(toolName);
  }
  let re: RegExp;
  try {
    re = new RegExp(matcher);
  } catch {
    // An invalid regex matches nothing; parseHooksSettings already reported it.
    return () => false;
  }
  return (toolName) => re.test(toolName);
}
