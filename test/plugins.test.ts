/**
 * Plugins in Claude Code's format, from the Agent SDK face (`plugins: [{ type: 'local', path }]`) against the scripted
 * server, with toolgate's own fixture plugin (test/fixtures/plugins/toolgate-kit): its command expands as
 * `/toolgate-kit:greet` with `${CLAUDE_PLUGIN_ROOT}` filled in, its skill is offered to the model, its agent runs as
 * `toolgate-kit:reviewer`, its hook fires on a Bash call, its MCP server's tool is listed as
 * `mcp__plugin_toolgate-kit_echo__echo` and called. Without the plugin loaders each of these is missing.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, harness, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

const KIT = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'toolgate-kit'));
const plugins = [{ type: 'local' as const, path: KIT }];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const requestText = (n: number) => JSON.stringify(h!.server.messageRequests[n]!.body);

describe('a plugin from the Agent SDK face', { timeout: 60_000 }, () => {
  it('init lists the plugin, its command, skill, agent, MCP server and tool', async () => {
    h = await harness([text('ok')]);
    const { messages, error } = await h.run('hi', { plugins });
    expect(error).toBeUndefined();
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init') as unknown as Record<string, unknown>;
    expect(init.plugins).toEqual([{ name: 'toolgate-kit', path: KIT }]);
    expect(init.slash_commands).toContain('toolgate-kit:greet');
    expect(init.skills).toContain('toolgate-kit:tidy-notes');
    expect(init.agents).toContain('toolgate-kit:reviewer');
    expect(init.mcp_servers).toContainEqual(expect.objectContaining({ name: 'plugin:toolgate-kit:echo', status: 'connected' }));
    expect(init.tools).toContain('mcp__plugin_toolgate-kit_echo__echo');
  });

  it('/toolgate-kit:greet expands, with ${CLAUDE_PLUGIN_ROOT} filled in', async () => {
    h = await harness([text('Hello Ada!')]);
    const { messages } = await h.run('/toolgate-kit:greet Ada', { plugins });
    expect((resultOf(messages) as { result?: string }).result).toBe('Hello Ada!');
    expect(requestText(0)).toContain('Greet Ada warmly.');
    expect(requestText(0)).toContain(`The greeting card is in ${KIT}/commands.`);
  });

  it('the skill is offered to the model and runs through the Skill tool', async () => {
    h = await harness([call('Skill', { skill: 'toolgate-kit:tidy-notes' }), text('tidied')]);
    const { messages } = await h.run('tidy my notes', { plugins });
    const tools = h.server.messageRequests[0]!.body.tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === 'Skill')!.description).toContain('toolgate-kit:tidy-notes');
    expect(requestText(1)).toContain('Turn each line of the notes file into a bullet.');
    expect((resultOf(messages) as { result?: string }).result).toBe('tidied');
  });

  it('the agent runs as toolgate-kit:reviewer, with its own prompt', async () => {
    h = await harness([call('Agent', { description: 'review', prompt: 'review the change', subagent_type: 'toolgate-kit:reviewer' }), text('LGTM'), text('The reviewer says LGTM.')]);
    const { messages } = await h.run('get a review', { plugins });
    expect(JSON.stringify(h.server.messageRequests[1]!.body.system)).toContain('You are the toolgate-kit reviewer.');
    expect(toolResults(messages).join('\n')).toContain('LGTM');
    expect((resultOf(messages) as { result?: string }).result).toBe('The reviewer says LGTM.');
  });

  it('the hook fires on a Bash call, its ${CLAUDE_PLUGIN_ROOT} script found', async () => {
    h = await harness([call('Bash', { command: 'echo plugged', description: 'echo' }), text('done')]);
    await h.run('run it', { plugins, allowedTools: ['Bash(echo *)'] });
    const log = path.join(h.dir, 'plugin-hook.log');
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toBe('PostToolUse Bash echo plugged\n');
  });

  it('the MCP tool is called by its Claude Code name, through the permission engine', async () => {
    h = await harness([call('mcp__plugin_toolgate-kit_echo__echo', { text: 'hi' }), text('echoed'), call('mcp__plugin_toolgate-kit_echo__echo', { text: 'again' }), text('refused')]);
    const allowed = await h.run('echo', { plugins, allowedTools: ['mcp__plugin_toolgate-kit_echo__echo'] });
    expect(toolResults(allowed.messages)).toEqual(['echo: hi']);
    // No rule allows it: headless, the call is denied like any MCP tool's.
    const denied = await h.run('echo', { plugins });
    expect(toolResults(denied.messages)[0]).toMatch(/permission/i);
    expect(toolResults(denied.messages)[0]).not.toContain('echo: again');
  });

  it('a plugin folder that cannot be read stops the session, naming it', async () => {
    h = await harness([text('never')]);
    const { error } = await h.run('hi', { plugins: [{ type: 'local', path: path.join(h.dir, 'no-such-plugin') }] });
    expect(String(error)).toMatch(/no-such-plugin/);
    expect(h.server.messageRequests).toHaveLength(0);
  });
});
