/**
 * Skills in a session: `query()` with the real Anthropic SDK against the scripted server. The model calls Skill, the
 * next request carries the SKILL.md; while the skill is active its allowed-tools narrow the model's calls (headless:
 * what would ask is denied); the next turn starts without the ceiling. The init event lists skills and commands.
 */
import Anthropic from '@anthropic-ai/sdk';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { query } from '../src/agent/query.js';
import { expandSlashCommand } from '../src/agent/slash-commands.js';
import type { QueryEvent, ToolRuntime } from '../src/agent/types.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';

let dir: string;
let project: string;
let server: ScriptedServer | undefined;
let runtime: ToolRuntime | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-skills-session-')));
  project = path.join(dir, 'project');
  mkdirSync(path.join(project, '.claude', 'skills', 'tidy'), { recursive: true });
  writeFileSync(
    path.join(project, '.claude', 'skills', 'tidy', 'SKILL.md'),
    '---\ndescription: Tidy the workspace safely\nallowed-tools: Read Bash(git status *)\n---\n# Tidy\nRead reference.md in this folder before removing anything.\n',
  );
  writeFileSync(path.join(project, '.claude', 'skills', 'tidy', 'reference.md'), 'Never remove .keep files.\n');
  mkdirSync(path.join(project, '.claude', 'commands'), { recursive: true });
  writeFileSync(path.join(project, '.claude', 'commands', 'standup.md'), 'Summarise yesterday.\n');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await runtime?.dispose();
  runtime = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function collect(iterable: AsyncIterable<QueryEvent>): Promise<QueryEvent[]> {
  const events: QueryEvent[] = [];
  for await (const e of iterable) events.push(e);
  return events;
}
const flat = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

describe('skills in a session', { timeout: 60_000 }, () => {
  it('the model calls Skill and gets the SKILL.md; its allowed-tools narrow that turn only; init lists them', async () => {
    const skillDir = path.join(project, '.claude', 'skills', 'tidy');
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'Skill', input: { skill: 'tidy' } }] },
      // The skill's text is in this request: the model reads the file it points to, then tries a command the
      // settings allow but the skill's allowed-tools do not cover.
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(skillDir, 'reference.md') } }, { type: 'tool_use', name: 'Bash', input: { command: 'mkdir scratch' } }] },
      { content: [{ type: 'text', text: 'Tidied.' }] },
      // Next prompt, same runtime: the ceiling is gone.
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'mkdir scratch' } }] },
      { content: [{ type: 'text', text: 'Made it.' }] },
    ]);
    runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(dir, 'session'), settings: { homeDir: path.join(dir, 'home'), sources: ['project', 'user'] }, rules: { allow: ['Bash(mkdir *)'] } });
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
    const events = await collect(query({ runtime, client, prompt: 'tidy up please', model: 'claude-sonnet-4-6' }));

    const init = events[0]!;
    expect(init).toMatchObject({ type: 'init', skills: ['tidy'], slashCommands: ['standup', 'tidy'] });
    expect((init as unknown as { tools: string[] }).tools).toContain('Skill');
    // The tool's description lists the skill.
    const tools = server.messageRequests[0]!.body.tools as { name: string; description: string }[];
    expect(tools.find((t) => t.name === 'Skill')!.description).toContain('- tidy: Tidy the workspace safely');

    const second = server.messageRequests[1]!.body.messages.at(-1);
    expect(flat(second.content)).toContain('Launching skill: tidy');
    expect(flat(second.content)).toContain(`Base directory for this skill: ${skillDir}`);
    expect(flat(second.content)).toContain('Read reference.md in this folder before removing anything.');

    const third = server.messageRequests[2]!.body.messages.at(-1).content as { type: string; content: unknown; is_error?: boolean }[];
    expect(flat(third[0]!.content)).toContain('Never remove .keep files.');
    expect(third[1]!.is_error).toBe(true);
    expect(flat(third[1]!.content)).toContain('skill "tidy" is active');
    expect(existsSync(path.join(project, 'scratch'))).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { stopReason: 'end_turn', text: 'Tidied.' } });
    expect(runtime.permissionContext.allowCeilings).toBeUndefined();

    const next = await collect(query({ runtime, client, prompt: 'now make scratch', model: 'claude-sonnet-4-6' }));
    expect(next.at(-1)).toMatchObject({ type: 'result', result: { text: 'Made it.' } });
    expect(existsSync(path.join(project, 'scratch'))).toBe(true);
  });

  it('a typed /command: its text is the prompt, and its allowed-tools narrow the turn it starts', async () => {
    writeFileSync(path.join(project, '.claude', 'commands', 'look.md'), '---\nallowed-tools: Read\n---\nLook around $ARGUMENTS, change nothing.\n');
    server = await startScriptedServer([
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'mkdir scratch' } }] },
      { content: [{ type: 'text', text: 'Looked.' }] },
    ]);
    runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(dir, 'session'), settings: { homeDir: path.join(dir, 'home'), sources: ['project'] }, rules: { allow: ['Bash(mkdir *)'] } });
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url, maxRetries: 0 });
    const expansion = await expandSlashCommand(runtime, '/look src/');
    const events = await collect(query({ runtime, client, prompt: [expansion!.message], model: 'claude-sonnet-4-6' }));
    const first = server.messageRequests[0]!.body.messages[0];
    expect(flat(first.content)).toContain('<command-name>/look</command-name>');
    expect(flat(first.content)).toContain('Look around src/, change nothing.');
    const results = server.messageRequests[1]!.body.messages.at(-1).content as { content: unknown; is_error?: boolean }[];
    expect(results[0]!.is_error).toBe(true);
    expect(flat(results[0]!.content)).toContain('/look is active');
    expect(existsSync(path.join(project, 'scratch'))).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'result', result: { text: 'Looked.' } });
    expect(runtime.permissionContext.allowCeilings).toBeUndefined();
  });
});
