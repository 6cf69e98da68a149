import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHooksSettings } from './parse-hooks-settings.js';
import { createLoopHooks } from './loop-hooks.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-loop-hooks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const event = () => ({ sessionId: 's', cwd: dir, permissionMode: 'default' as const, projectDir: dir });
const signal = new AbortController().signal;

function hooksFrom(hooks: Record<string, unknown>) {
  const parsed = parseHooksSettings([{ source: 'projectSettings', file: 'settings.json', hooks }]);
  expect(parsed.errors).toEqual([]);
  return createLoopHooks({ config: parsed.config });
}

describe('loop hooks (command hooks, Claude Code protocol)', () => {
  it('UserPromptSubmit: plain stdout is context for the model; exit 2 blocks with stderr; the JSON input names the event and prompt', async () => {
    const hooks = hooksFrom({
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: `input=$(cat); case "$input" in *'"prompt":"secret'*) echo "no secrets" >&2; exit 2;; esac; echo "$input" | grep -q '"hook_event_name":"UserPromptSubmit"' && echo "today is Tuesday"` }] }],
    });
    const ok = await hooks.userPromptSubmit({ ...event(), prompt: 'hello' }, signal);
    expect(ok.additionalContext).toEqual(['today is Tuesday']);
    expect(ok.block).toBeUndefined();
    const blocked = await hooks.userPromptSubmit({ ...event(), prompt: 'secret stuff' }, signal);
    expect(blocked.block?.reason).toBe('no secrets');
  });

  it('Stop: decision block keeps the loop going, stop_hook_active reaches the hook; continue:false stops; SessionStart matches on source', async () => {
    const hooks = hooksFrom({
      Stop: [{ hooks: [{ type: 'command', command: `grep -q '"stop_hook_active":true' && echo '{}' || echo '{"decision":"block","reason":"tests are red"}'` }] }],
      SessionStart: [{ matcher: 'resume', hooks: [{ type: 'command', command: 'echo resumed-context' }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: `echo '{"continue":false,"stopReason":"bye"}'` }] }],
    });
    expect((await hooks.stop({ ...event(), stopHookActive: false, lastAssistantMessage: 'done' }, signal)).block?.reason).toBe('tests are red');
    expect((await hooks.stop({ ...event(), stopHookActive: true, lastAssistantMessage: 'done' }, signal)).block).toBeUndefined();
    expect((await hooks.sessionStart({ ...event(), source: 'startup' }, signal)).additionalContext).toEqual([]);
    expect((await hooks.sessionStart({ ...event(), source: 'resume' }, signal)).additionalContext).toEqual(['resumed-context']);
    expect((await hooks.sessionEnd({ ...event(), reason: 'other' }, signal)).preventContinuation).toEqual({ stopReason: 'bye' });
  });

  it('configured() names the events a setting or a callback listens to', () => {
    const hooks = createLoopHooks({
      config: parseHooksSettings([{ source: 'projectSettings', file: 'settings.json', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }]).config,
      callbacks: [{ event: 'SessionEnd', callback: async () => ({}) }],
    });
    expect(['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'].map((e) => hooks.configured?.(e as 'Stop'))).toEqual([false, false, true, true]);
  });

  it('a handler with `if` never runs on an event that is not a tool call', async () => {
    const hooks = hooksFrom({
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo filtered', if: 'Bash(*)' }, { type: 'command', command: 'echo plain' }] }],
    });
    expect((await hooks.userPromptSubmit({ ...event(), prompt: 'hi' }, signal)).additionalContext).toEqual(['plain']);
  });
});
