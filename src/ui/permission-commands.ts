/**
 * `/permissions add` and `/permissions remove`: a rule written to (or taken out of) a settings file and the session's
 * permission context changed to match at once — both through the session (its one applier, and its rule removal).
 *
 *   /permissions add allow|ask|deny RULE [local|project|user]   (default local: .claude/settings.local.json)
 *   /permissions remove RULE                                    (from the file it was read from)
 */
import { formatPermissionRule, tryParsePermissionRule } from '../permissions/permission-rule.js';
import type { PermissionBehavior, PermissionUpdateDestination } from '../tool/permission-types.js';
import type { TerminalSession } from './session.js';

const DESTINATIONS: Readonly<Record<string, PermissionUpdateDestination>> = { local: 'localSettings', project: 'projectSettings', user: 'userSettings' };
const BEHAVIORS = new Set<PermissionBehavior>(['allow', 'ask', 'deny']);

export function addRuleCommand(terminal: TerminalSession, rest: string): void {
  const { store, session } = terminal;
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
  terminal.track(async () => {
    // A person asked for the rule in a file: not written, not added.
    const { written, errors } = await session.applyPermissionUpdates([{ type: 'addRules', rules: [parsed.value], behavior, destination }], { onlySaved: true });
    if (errors.length > 0 || written.length === 0) {
      store.notice(`Not added: ${errors.join('; ') || 'nothing was written'}`, 'error');
      return;
    }
    store.notice(`Added ${behavior} rule ${formatPermissionRule(parsed.value)} to ${written[0]}.`);
  });
}

export function removeRuleCommand(terminal: TerminalSession, text: string): void {
  const { store, session } = terminal;
  terminal.track(async () => {
    const { rule, problem, removed, kept } = await session.removeRule(text);
    if (problem !== undefined) return store.notice('Usage: /permissions remove RULE (as /permissions lists it)', 'warn');
    if (removed.length === 0 && kept.length === 0) return store.notice(`No rule ${rule} is in effect (/permissions lists them).`, 'warn');
    const lines = [...removed.map((r) => `Removed ${rule}: ${r}.`), ...kept.map((k) => `Kept ${rule}: ${k}.`)];
    store.notice(lines.join('\n'), kept.length > 0 ? 'warn' : 'info');
  });
}
