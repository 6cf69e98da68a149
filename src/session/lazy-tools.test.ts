/**
 * A session's built-ins and the faces (registry/lazy-tool.ts): by default a built-in is a stub until its first call,
 * and what the session hands a face about a call — the tool_use event — comes once the module has loaded, so a face
 * that draws it from the pool (its name for people, its one-line summary) never meets a stub; `eagerTools` (the
 * terminal) has every built-in whole from the start. Real query loop, real tools, the scripted Messages API server.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../testing/index.js';
import { Session } from './session.js';

let dir: string;
let server: ScriptedServer | undefined;
let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function open(url: string, eagerTools: boolean): Session {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-test' };
  return new Session({ cwd: dir, env, settingSources: [], persist: false, allowedTools: ['Glob'], classifier: false, ...(eagerTools ? { eagerTools } : {}) });
}

describe("a session's built-ins before their first call", { timeout: 60_000 }, () => {
  it('by default a stub, and whole by the time its tool_use event reaches the face', async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lazy-tools-')));
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    server = await startScriptedServer([{ content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.txt' } }] }, { content: [{ type: 'text', text: 'Found it.' }] }]);
    session = open(server.url, false);
    await session.start();
    // The module has not loaded: a member the manifest does not hold is refused, not guessed.
    expect(() => session!.findTool('Glob')!.userFacingName({ pattern: '*.txt' })).toThrow(/before its module loaded/);
    session.send('Which text files are there?');
    session.end();
    const drawn: string[] = [];
    for await (const event of session.events()) {
      if (event.type !== 'tool_use') continue;
      const tool = session.findTool(event.block.name)!;
      const input = event.block.input as { pattern: string };
      drawn.push(`${tool.userFacingName(input)}: ${tool.renderToolUseMessage(input)}`);
    }
    expect(drawn).toEqual(['Search: pattern: "*.txt"']);
  });

  it('with eagerTools, whole from the start (a face that draws calls from the pool: the terminal)', async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lazy-tools-')));
    server = await startScriptedServer([]);
    session = open(server.url, true);
    await session.start();
    expect(session.findTool('Glob')!.userFacingName({ pattern: '*.txt' })).toBe('Search');
    expect(session.findTool('Bash')!.permissionPreview).toBeTypeOf('function');
  });
});
