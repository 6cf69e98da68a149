/**
 * A real plugin from a public repository, unchanged (test/fixtures/plugins/superpowers: obra/superpowers, MIT, a
 * subset; SOURCE.md says which): its SessionStart hook runs `"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start`,
 * which answers in Claude Code's format only when CLAUDE_PLUGIN_ROOT is in its environment — its using-superpowers
 * text reaches the model's context — and its skills are offered as `superpowers:<name>` and run through Skill.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, harness, text, type Harness } from './helpers/agent-sdk-session.js';

const SUPERPOWERS = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'superpowers'));

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('obra/superpowers as a plugin', { timeout: 60_000 }, () => {
  it('its SessionStart hook adds its context; its skills are offered and run', async () => {
    h = await harness([call('Skill', { skill: 'superpowers:verification-before-completion' }), text('verified')]);
    const { messages, error } = await h.run('is it done?', { plugins: [{ type: 'local', path: SUPERPOWERS }] });
    expect(error).toBeUndefined();
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init') as unknown as { skills: string[] };
    expect(init.skills).toEqual(expect.arrayContaining(['superpowers:using-superpowers', 'superpowers:verification-before-completion', 'superpowers:executing-plans']));
    const first = JSON.stringify(h.server.messageRequests[0]!.body);
    expect(first).toContain('You have superpowers.');
    expect(first).toContain("Below is the full content of your 'superpowers:using-superpowers' skill");
    const tools = h.server.messageRequests[0]!.body.tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === 'Skill')!.description).toContain('superpowers:verification-before-completion');
    expect(JSON.stringify(h.server.messageRequests[1]!.body.messages)).toContain('Verification Before Completion');
  });
});
