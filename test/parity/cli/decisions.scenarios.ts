/**
 * The permission decision behind each tool result (`tool_result_meta` on stream-json's user lines) and init's
 * `sandbox_enabled`, case by case: one call each, decided by a rule, the mode, a hook, a deny rule, or nobody (headless),
 * and a session with the sandbox on. Recorded from the real `claude -p` by record.ts (decisions.json), compared by
 * decisions.test.ts with what `toolgate -p` prints.
 */
import fs from 'node:fs';
import path from 'node:path';

export const DECISIONS_RECORDING = path.join(import.meta.dirname, 'decisions.json');

export interface DecisionCase {
  readonly name: string;
  readonly call: { readonly name: string; readonly input: Record<string, unknown> };
  /** Flags after the output flags; `$HOOK_ALLOW`/`$HOOK_DENY` become hook scripts that answer so. */
  readonly flags: readonly string[];
}

const touch = { name: 'Bash', input: { command: 'touch made-by-the-model', description: 'make a file' } };
const hooks = (script: string) => JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: script }] }] } });

export const DECISION_CASES: readonly DecisionCase[] = [
  { name: 'allow rule', call: touch, flags: ['--allowedTools', 'Bash'] },
  { name: 'nobody to ask', call: touch, flags: [] },
  { name: 'read in the project', call: { name: 'Read', input: { file_path: 'a.txt' } }, flags: [] },
  { name: 'hook allows', call: touch, flags: ['--settings', hooks('$HOOK_ALLOW')] },
  { name: 'hook denies', call: touch, flags: ['--allowedTools', 'Bash', '--settings', hooks('$HOOK_DENY')] },
  { name: 'deny rule', call: touch, flags: ['--disallowedTools', 'Bash(touch:*)'] },
  { name: 'sandbox on', call: { name: 'Read', input: { file_path: 'a.txt' } }, flags: ['--settings', JSON.stringify({ sandbox: { enabled: true } })] },
];

/** The project (a.txt) and the hook scripts in `dir`; the flags with the scripts' paths. */
export function prepareDecisionCase(c: DecisionCase, dir: string, scripts: string): string[] {
  fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
  fs.mkdirSync(scripts, { recursive: true });
  const answer = (decision: string) => `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}","permissionDecisionReason":"the hook said ${decision}"}}'\n`;
  fs.writeFileSync(path.join(scripts, 'allow.sh'), answer('allow'), { mode: 0o755 });
  fs.writeFileSync(path.join(scripts, 'deny.sh'), answer('deny'), { mode: 0o755 });
  return c.flags.map((f) => f.replaceAll('$HOOK_ALLOW', path.join(scripts, 'allow.sh')).replaceAll('$HOOK_DENY', path.join(scripts, 'deny.sh')));
}

export interface DecisionShape {
  readonly sandboxEnabled: unknown;
  readonly toolResultMeta: unknown[];
}

export function decisionShape(stdout: string): DecisionShape {
  let sandboxEnabled: unknown;
  const toolResultMeta: unknown[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    const m = JSON.parse(line) as { type: string; subtype?: string; sandbox_enabled?: unknown; tool_result_meta?: unknown };
    if (m.type === 'system' && m.subtype === 'init') sandboxEnabled = m.sandbox_enabled;
    if (m.type === 'user' && 'tool_result_meta' in m) toolResultMeta.push(m.tool_result_meta);
  }
  return { sandboxEnabled, toolResultMeta };
}
