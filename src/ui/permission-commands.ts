/**
 * `/permissions add` and `/permissions remove`: a rule written to (or taken out of) a settings file by the one grant
 * writer (src/settings/grants.ts), and the session's permission context changed to match at once.
 *
 *   /permissions add allow|ask|deny RULE [local|project|user]   (default local: .claude/settings.local.json)
 *   /permissions remove RULE                                    (from the file it was read from)
 */
import { updatePermissionContext } from '../permissions/permission-context.js';
import { applyPermissionUpdates } from '../permissions/permission-updates.js';
import { formatPermissionRule, tryParsePermissionRule } from '../permissions/permission-rule.js';
import { createGrantWriter, revokeGrant, type GrantDestination } from '../settings/grants.js';
import type { PermissionBehavior, PermissionRule } from '../tool/permission-types.js';
import type { Session } from './session.js';

const DESTINATIONS: Readonly<Record<string, GrantDestination>> = { local: 'localSettings', project: 'projectSettings', user: 'userSettings' };
const BEHAVIORS = new Set<PermissionBehavior>(['allow', 'ask', 'deny']);

export function addRuleCommand(session: Session, rest: string): void {
  const { store, runtime } = session.options;
  const match = /^(allow|ask|deny)\s+(.+?)(?:\s+(local|project|user))?\s*$/.exec(rest.trim());
  if (!match || !BEHAVIORS.has(match[1] as PermissionBehavior)) {
    store.notice('Usage: /permissions add allow|ask|deny RULE [local|project|user], e.g. /permissions add allow Bash(npm test)', 'warn');
    return;
  }
  const behavior = match[1] as PermissionBehavior;
  const parsed = tryParsePermissionRule(match[2]!);
  if (!parsed.ok) {
    store.notice(`Not a permission rule: ${match[2]} (${parsed.error.problem})`, 'warn');
    return;
  }
  const destination = DESTINATIONS[match[3] ?? 'local']!;
  const ctx = runtime.context.getAppState().toolPermissionContext;
  const update = { type: 'addRules' as const, rules: [parsed.value], behavior, destination };
  session.track(async () => {
    const { written, errors } = await createGrantWriter({ projectDir: ctx.projectDir, ...(ctx.homeDir !== undefined ? { homeDir: ctx.homeDir } : {}) }).persist([update]);
    if (errors.length > 0 || written.length === 0) {
      store.notice(`Not added: ${errors.join('; ') || 'nothing was written'}`, 'error');
      return;
    }
    runtime.context.setAppState((prev) => ({ ...prev, toolPermissionContext: applyPermissionUpdates(prev.toolPermissionContext, [update], { [destination]: written[0]! }) }));
    store.notice(`Added ${behavior} rule ${formatPermissionRule(parsed.value)} to ${written[0]}.`);
  });
}

export function removeRuleCommand(session: Session, text: string): void {
  const { store, runtime } = session.options;
  const parsed = tryParsePermissionRule(text.trim());
  if (!parsed.ok) {
    store.notice('Usage: /permissions remove RULE (as /permissions lists it)', 'warn');
    return;
  }
  const wanted = formatPermissionRule(parsed.value);
  const ctx = runtime.context.getAppState().toolPermissionContext;
  const all = [...ctx.alwaysAllowRules, ...ctx.alwaysAskRules, ...ctx.alwaysDenyRules] as PermissionRule[];
  const matches = all.filter((r) => formatPermissionRule(r.ruleValue) === wanted);
  if (matches.length === 0) {
    store.notice(`No rule ${wanted} is in effect (/permissions lists them).`, 'warn');
    return;
  }
  const removed: string[] = [];
  const kept: string[] = [];
  const drop = new Set<PermissionRule>();
  for (const rule of matches) {
    if (rule.source === 'session') {
      drop.add(rule);
      removed.push(`${rule.ruleBehavior} (this session)`);
    } else if ((rule.source === 'localSettings' || rule.source === 'projectSettings' || rule.source === 'userSettings') && rule.sourceFile) {
      try {
        const done = revokeGrant(wanted, { projectDir: ctx.projectDir, ...(ctx.homeDir !== undefined ? { homeDir: ctx.homeDir } : {}), file: rule.sourceFile, behavior: rule.ruleBehavior });
        if (done.length > 0) {
          drop.add(rule);
          removed.push(`${rule.ruleBehavior} from ${rule.sourceFile}`);
        } else kept.push(`${rule.sourceFile} (not found in the file)`);
      } catch (error) {
        kept.push(`${rule.sourceFile} (${error instanceof Error ? error.message : String(error)})`);
      }
    } else {
      kept.push(`${rule.source}${rule.sourceFile ? ` ${rule.sourceFile}` : ''} (not a file this session edits)`);
    }
  }
  if (drop.size > 0) {
    runtime.context.setAppState((prev) => {
      const p = prev.toolPermissionContext;
      const keep = (list: readonly PermissionRule[]) => list.filter((r) => !drop.has(r));
      return {
        ...prev,
        toolPermissionContext: updatePermissionContext(p, {
          alwaysAllowRules: keep(p.alwaysAllowRules as readonly PermissionRule[]),
          alwaysAskRules: keep(p.alwaysAskRules as readonly PermissionRule[]),
          alwaysDenyRules: keep(p.alwaysDenyRules as readonly PermissionRule[]),
        }),
      };
    });
  }
  const lines = [...removed.map((r) => `Removed ${wanted}: ${r}.`), ...kept.map((k) => `Kept ${wanted}: ${k}.`)];
  store.notice(lines.join('\n'), kept.length > 0 ? 'warn' : 'info');
}
