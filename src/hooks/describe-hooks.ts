/**
 * The resolved hooks, one row per handler, for a `hooks doctor`-style listing (user-asks #7: hooks that silently never
 * fire). It says for every handler whether toolgate will run it and, when not, why.
 */
import { HOOK_EVENT_NAMES, type HooksConfig } from './types.js';

export interface ResolvedHook {
  event: string;
  /** As written; `*` when absent or empty. */
  matcher: string;
  source: string;
  file?: string;
  /** `hooks.PreToolUse[0].hooks[1]` */
  path?: string;
  type: string;
  /** The command (with args) or URL. */
  target?: string;
  if?: string;
  timeoutSeconds?: number;
  failClosed: boolean;
  async: boolean;
  /** `runs`, or why toolgate never runs it. */
  status: 'runs' | 'event not fired by toolgate' | 'handler type not supported';
}

const FIRED = new Set<string>(HOOK_EVENT_NAMES);

export function describeHooks(config: HooksConfig): ResolvedHook[] {
  const rows: ResolvedHook[] = [];
  for (const [event, groups] of Object.entries(config)) {
    for (const g of groups ?? []) {
      g.hooks.forEach((h, i) => {
        const runnable = h.type === 'command' || h.type === 'http';
        rows.push({
          event,
          matcher: g.matcher === undefined || g.matcher.trim() === '' ? '*' : g.matcher,
          source: g.source,
          file: g.file,
          path: g.path ? `${g.path}.hooks[${i}]` : undefined,
          type: h.type,
          target: h.type === 'command' ? [h.command, ...(h.args ?? [])].join(' ') : h.type === 'http' ? h.url : undefined,
          if: h.if,
          timeoutSeconds: h.timeout,
          failClosed: h.failClosed ?? false,
          async: h.type === 'command' && (h.async === true || h.asyncRewake === true),
          status: !FIRED.has(event) ? 'event not fired by toolgate' : runnable ? 'runs' : 'handler type not supported',
        });
      });
    }
  }
  return rows;
}
