/**
 * A rule taken out of a session (`/permissions remove`): a rule of the session itself is dropped; one read from a
 * settings file this session edits is deleted from that very file (the grant writer), then dropped from the session;
 * any other (policy, a flag's file) is kept, saying why.
 */
import type { ToolRuntime } from '../agent/types.js';
import { formatPermissionRule, tryParsePermissionRule } from '../permissions/permission-rule.js';
import { revokeGrant } from '../settings/grants.js';
import type { PermissionRule, PermissionUpdate } from '../tool/permission-types.js';

export interface RuleRemoval {
  /** The rule as the session names it (undefined: the text is not a rule). */
  readonly rule?: string;
  readonly problem?: string;
  /** `allow (this session)`, `deny from <file>`… */
  readonly removed: readonly string[];
  /** Where it stays, and why. */
  readonly kept: readonly string[];
}

export async function removeRule(runtime: ToolRuntime, text: string): Promise<RuleRemoval> {
  const parsed = tryParsePermissionRule(text.trim());
  if (!parsed.ok) return { problem: parsed.error.problem, removed: [], kept: [] };
  const wanted = formatPermissionRule(parsed.value);
  const ctx = runtime.permissionContext;
  const all = [...ctx.alwaysAllowRules, ...ctx.alwaysAskRules, ...ctx.alwaysDenyRules] as PermissionRule[];
  const removed: string[] = [];
  const kept: string[] = [];
  const drop: PermissionUpdate[] = [];
  for (const rule of all.filter((r) => formatPermissionRule(r.ruleValue) === wanted)) {
    const update = { type: 'removeRules' as const, rules: [rule.ruleValue], behavior: rule.ruleBehavior };
    if (rule.source === 'session') {
      drop.push({ ...update, destination: 'session' });
      removed.push(`${rule.ruleBehavior} (this session)`);
    } else if ((rule.source === 'localSettings' || rule.source === 'projectSettings' || rule.source === 'userSettings') && rule.sourceFile) {
      try {
        const done = revokeGrant(wanted, { projectDir: ctx.projectDir, ...(ctx.homeDir !== undefined ? { homeDir: ctx.homeDir } : {}), file: rule.sourceFile, behavior: rule.ruleBehavior });
        if (done.length > 0) {
          drop.push({ ...update, destination: rule.source });
          removed.push(`${rule.ruleBehavior} from ${rule.sourceFile}`);
        } else kept.push(`${rule.sourceFile} (not found in the file)`);
      } catch (error) {
        kept.push(`${rule.sourceFile} (${error instanceof Error ? error.message : String(error)})`);
      }
    } else {
      kept.push(`${rule.source}${rule.sourceFile ? ` ${rule.sourceFile}` : ''} (not a file this session edits)`);
    }
  }
  // The files are edited above (the very file each rule came from): the session only drops them.
  if (drop.length > 0) await runtime.applyPermissionUpdates(drop, { save: false });
  return { rule: wanted, removed, kept };
}
