/**
 * Which permission modes are narrower than which: what lets the engine say that a mode asked for by something less
 * trusted than the session (an agent definition's `permissionMode`, a repository's `defaultMode`) narrows the session's
 * and never widens it.
 *
 *   bypassPermissions > auto > acceptEdits > default (= bubble) > plan, dontAsk
 *
 * auto counts as wider than acceptEdits: a model decides what acceptEdits would put to a person. plan and dontAsk are
 * both narrower than default but not comparable with each other: plan refuses every write (allow rules included) and
 * still asks a person for the rest, dontAsk honours allow rules for writes and refuses whatever would ask. Neither is
 * within the other, so one never replaces the other.
 */
import type { PermissionMode } from '../tool/permission-types.js';

const RANK: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 0,
  default: 1,
  bubble: 1,
  acceptEdits: 2,
  auto: 3,
  bypassPermissions: 4,
};

/** `mode` allows nothing that `ceiling` would not (equal modes included). */
export function isModeWithin(mode: PermissionMode, ceiling: PermissionMode): boolean {
  if (mode === ceiling) return true;
  const [m, c] = [RANK[mode], RANK[ceiling]];
  // plan and dontAsk: each refuses something the other allows.
  if (m === 0 && c === 0) return false;
  return m <= c;
}

/** `requested` when it is within `ceiling`, otherwise `ceiling`: never wider than the ceiling. */
export function narrowMode(requested: PermissionMode | undefined, ceiling: PermissionMode): PermissionMode {
  return requested !== undefined && isModeWithin(requested, ceiling) ? requested : ceiling;
}
