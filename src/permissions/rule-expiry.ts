/**
 * Expiring grants: an allow rule with `expiresAt` counts until that moment and is ignored after it. The engine decides
 * against the live view of a context (expired allow rules taken out), remembered per frozen context until the next
 * rule expires, so a context with no expiring rule costs one lookup.
 */
import type { PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
import { updatePermissionContext } from './permission-context.js';

interface LiveView {
  readonly live: ToolPermissionContext;
  readonly expired: readonly PermissionRule[];
  /** The live view holds until this time (ms); Infinity when no rule is left to expire. */
  readonly validUntil: number;
}

const views = new WeakMap<ToolPermissionContext, LiveView>();

export function isRuleExpired(rule: PermissionRule, now: number = Date.now()): boolean {
  if (rule.expiresAt === undefined) return false;
  const t = Date.parse(rule.expiresAt);
  // An unreadable date is no licence: treat it as expired (fail closed).
  return Number.isNaN(t) || t <= now;
}

/** The context with expired allow rules removed, and the rules removed. */
export function liveContext(ctx: ToolPermissionContext, now: number = Date.now()): LiveView {
  const known = views.get(ctx);
  if (known !== undefined && now < known.validUntil) return known;
  let validUntil = Infinity;
  const expired: PermissionRule[] = [];
  for (const rule of ctx.alwaysAllowRules) {
    if (rule.expiresAt === undefined) continue;
    if (isRuleExpired(rule, now)) expired.push(rule);
    else validUntil = Math.min(validUntil, Date.parse(rule.expiresAt));
  }
  const live = expired.length === 0 ? ctx : updatePermissionContext(ctx, { alwaysAllowRules: ctx.alwaysAllowRules.filter((r) => !expired.includes(r)) });
  const view: LiveView = { live, expired, validUntil };
  if (Object.isFrozen(ctx)) views.set(ctx, view);
  return view;
}

/** The context with the expired rules put back (to tell whether one of them would have decided a call). */
export function withExpiredRules(view: LiveView): ToolPermissionContext {
  return updatePermissionContext(view.live, { alwaysAllowRules: [...view.live.alwaysAllowRules, ...view.expired] });
}
