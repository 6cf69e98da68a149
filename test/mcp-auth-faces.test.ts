/**
 * The MCP sign-in tool on the faces: the Agent SDK face hands the page to the program's `onElicitation` in URL mode,
 * and after the person's login the server's real tools answer the next call of the same session; without
 * `onElicitation` (headless) the call fails with the command to run. Real OAuth servers on 127.0.0.1, the real
 * Anthropic SDK against the scripted model.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { playBrowser, startOAuthTestServers, type OAuthTestServers } from '../src/mcp/test-helpers/oauth-servers.js';
import { call, harness, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';

let h: Harness | undefined;
let servers: OAuthTestServers;
beforeEach(async () => {
  servers = await startOAuthTestServers();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await servers.close();
});

const AUTH = 'mcp__remote__authenticate';

describe('mcp__<server>__authenticate on the Agent SDK face', { timeout: 90_000 }, () => {
  it("onElicitation gets the page in URL mode; once signed in, the server's tools answer in the same session", async () => {
    h = await harness([call(AUTH, {}), call('mcp__remote__echo', { text: 'after the login' }), text('done')]);
    const shown: { mode?: string; url?: string; serverName: string }[] = [];
    const { messages, error } = await h.run('sign in to the docs server', {
      mcpServers: { remote: { type: 'http', url: servers.mcpUrl } },
      allowedTools: ['mcp__remote'],
      onElicitation: async (request, { signal }) => {
        shown.push(request);
        expect((await playBrowser(request.url!)).status).toBe(200);
        // The dialog stays open until the finished login closes it.
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
      },
    });
    expect(error).toBeUndefined();
    expect(shown).toEqual([expect.objectContaining({ mode: 'url', serverName: 'remote', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/) })]);
    const results = toolResults(messages);
    expect(results[0]).toContain('signed in to MCP server "remote"');
    expect(results[1]).toContain('echo: after the login');
  });

  it('headless (no onElicitation): the call fails with `toolgate mcp login remote`, nothing registered', async () => {
    h = await harness([call(AUTH, {}), text('told the user')]);
    const { messages } = await h.run('sign in', { mcpServers: { remote: { type: 'http', url: servers.mcpUrl } }, allowedTools: ['mcp__remote'] });
    const [result] = toolResults(messages);
    expect(result).toMatch(/^<tool_use_error>.*`toolgate mcp login remote`/s);
    expect(servers.provider.counts.registrations).toBe(0);
  });
});
