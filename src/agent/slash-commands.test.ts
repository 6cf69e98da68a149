/**
 * A person's `/name args` through the runtime: rendering, `!` lines and `@` files through `runtime.run()` (headless
 * asks denied, an interactive handler asked), the turn's allow ceiling, listings and the init lists.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from './create-tool-runtime.js';
import { endCommandTurn, expandSlashCommand, listSlashCommands, slashCommandInit, SlashCommandError } from './slash-commands.js';
import type { RuntimePermissionRequest, ToolRuntime, ToolRuntimeOptions } from './types.js';

let dir: string;
let project: string;
let home: string;
const runtimes: ToolRuntime[] = [];
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-slash-')));
  project = path.join(dir, 'project');
  home = path.join(dir, 'home');
  mkdirSync(project);
  mkdirSync(home);
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
const command = (root: string, rel: string, text: string) => put(path.join(root, '.claude', 'commands', rel), text);
const skill = (root: string, name: string, text: string) => put(path.join(root, '.claude', 'skills', name, 'SKILL.md'), text);

async function runtimeWith(options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  const runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(dir, 'session'), sessionId: 'sess-1', ...options, settings: { homeDir: home, sources: ['project', 'user'], ...options.settings } });
  runtimes.push(runtime);
  return runtime;
}
const texts = (content: unknown) => (content as { type: string; text: string }[]).map((b) => b.text);

describe('expandSlashCommand', () => {
  it('not a custom command: undefined (the text is an ordinary prompt)', async () => {
    command(project, 'greet.md', 'Hello.\n');
    const runtime = await runtimeWith();
    expect(await expandSlashCommand(runtime, 'hello')).toBeUndefined();
    expect(await expandSlashCommand(runtime, '/etc/hosts says what?')).toBeUndefined();
    expect(await expandSlashCommand(runtime, '/unknown thing')).toBeUndefined();
  });

  it('renders the user message: the command line tagged as Claude Code tags it, the text, one block per @ file', async () => {
    command(project, 'frontend/test.md', '---\ndescription: Frontend tests\nargument-hint: [file]\nmodel: haiku\n---\nTest $0 (all: $ARGUMENTS).\nDir: !`pwd`\nRead @src/app.ts first.\n');
    put(path.join(project, 'src', 'app.ts'), 'export const app = 1;\n');
    const runtime = await runtimeWith();
    const expansion = await expandSlashCommand(runtime, '/frontend:test src/app.ts --watch');
    expect(expansion).toBeDefined();
    expect(expansion!.model).toBe('claude-haiku-5-5');
    expect(expansion!.command).toMatchObject({ name: 'frontend:test', kind: 'command', source: 'project:frontend', description: 'Frontend tests', argumentHint: '[file]' });
    const [tag, text, file] = texts(expansion!.message.content);
    expect(tag).toBe('<command-message>frontend:test</command-message>\n<command-name>/frontend:test</command-name>\n<command-args>src/app.ts --watch</command-args>\n'); // ended by a newline, as Claude Code sends it (test/parity/cli/commands.json)
    expect(text).toBe(`Test src/app.ts (all: src/app.ts --watch).\nDir: ${project}\nRead @src/app.ts first.\n`);
    expect(file).toContain(`Contents of @src/app.ts (${path.join(project, 'src', 'app.ts')}):`);
    expect(file).toContain('export const app = 1;');
  });

  it('headless: a `!` command that would ask is denied like any call, and the text says so; nothing ran', async () => {
    command(project, 'setup.md', 'Make it: !`mkdir made-by-command`\nLook: !`echo looked`\n');
    const runtime = await runtimeWith();
    const expansion = await expandSlashCommand(runtime, '/setup');
    const text = texts(expansion!.message.content)[1]!;
    expect(text).toContain('Look: looked');
    expect(text).toMatch(/Make it: \[shell command not run: `mkdir made-by-command` was refused — .*headless/);
    expect(existsSync(path.join(project, 'made-by-command'))).toBe(false);
  });

  it('interactive: the `!` command goes to the permission handler first, and runs only when the person allows it', async () => {
    command(project, 'setup.md', 'Make it: !`mkdir made-by-command`\n');
    const asked: RuntimePermissionRequest[] = [];
    const runtime = await runtimeWith({
      onPermissionRequest: async (request) => {
        asked.push(request);
        return asked.length === 1 ? { behavior: 'deny', message: 'not today' } : { behavior: 'allow' };
      },
    });
    const refused = texts((await expandSlashCommand(runtime, '/setup'))!.message.content)[1]!;
    expect(refused).toContain('was refused — not today');
    expect(existsSync(path.join(project, 'made-by-command'))).toBe(false);
    const allowed = texts((await expandSlashCommand(runtime, '/setup'))!.message.content)[1]!;
    expect(allowed).not.toContain('refused');
    expect(existsSync(path.join(project, 'made-by-command'))).toBe(true);
    expect(asked.map((r) => [r.tool.name, r.input.command])).toEqual([['Bash', 'mkdir made-by-command'], ['Bash', 'mkdir made-by-command']]);
  });

  it('disableSkillShellExecution in any settings file: `!` commands are replaced by a note and never run', async () => {
    command(project, 'setup.md', 'Make it: !`mkdir made-by-command`\n');
    const runtime = await runtimeWith({ rules: { allow: ['Bash(mkdir *)'] }, settings: { object: { disableSkillShellExecution: true } } });
    const text = texts((await expandSlashCommand(runtime, '/setup'))!.message.content)[1]!;
    expect(text).toBe('Make it: [shell command execution disabled by policy]\n');
    expect(existsSync(path.join(project, 'made-by-command'))).toBe(false);
    await expect(runtimeWith({ settings: { object: { disableSkillShellExecution: 'yes' } } })).rejects.toThrow('"disableSkillShellExecution" must be true or false');
  });

  it('a denied @ file is not inlined, and the text says why', async () => {
    command(project, 'peek.md', 'Look at @secrets/key.txt\n');
    put(path.join(project, 'secrets', 'key.txt'), 'PRIVATE-KEY-MATERIAL\n');
    const runtime = await runtimeWith({ rules: { deny: ['Read(secrets/**)'] } });
    const blocks = texts((await expandSlashCommand(runtime, '/peek'))!.message.content);
    expect(blocks.join('\n')).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(blocks[2]).toMatch(/^\[@secrets\/key\.txt was not read: .*Read\(secrets\/\*\*\)/);
  });

  it('allowed-tools narrow the main thread\'s next turn (a ceiling endCommandTurn lifts); a skill names its base directory', async () => {
    skill(project, 'commit', '---\nallowed-tools: Bash(git add *) Bash(git commit *)\n---\nCommit in ${CLAUDE_SKILL_DIR}.\n');
    const runtime = await runtimeWith({ rules: { allow: ['Bash(mkdir *)'] } });
    const expansion = await expandSlashCommand(runtime, '/commit');
    expect(expansion!.allowedTools).toEqual(['Bash(git add *)', 'Bash(git commit *)']);
    const base = path.join(project, '.claude', 'skills', 'commit');
    expect(texts(expansion!.message.content)[1]).toBe(`Base directory for this skill: ${base}\n\nCommit in ${base}.\n`);
    expect(runtime.permissionContext.allowCeilings).toEqual([expect.objectContaining({ label: '/commit' })]);
    const narrowed = await runtime.run([{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: { command: 'mkdir x' } }]);
    expect(narrowed.outcomes[0]!.stage).toBe('permission');
    endCommandTurn(runtime);
    const after = await runtime.run([{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'mkdir x' } }]);
    expect(after.outcomes[0]!.isError).toBe(false);
  });

  it('user-invocable: false cannot be typed; the model may still run it', async () => {
    skill(project, 'background', '---\nuser-invocable: false\ndescription: Legacy system context\n---\nThe old system.\n');
    const runtime = await runtimeWith();
    await expect(expandSlashCommand(runtime, '/background')).rejects.toThrow(SlashCommandError);
    await expect(expandSlashCommand(runtime, '/background')).rejects.toThrow('can only be run by the model');
    const result = await runtime.run([{ type: 'tool_use', id: 'toolu_m', name: 'Skill', input: { skill: 'background' } }]);
    expect(result.outcomes[0]!.isError).toBe(false);
  });
});

describe('listings', () => {
  it('list every skill and command with its source and description (first paragraph when none); the init lists', async () => {
    skill(project, 'pdf', '---\ndescription: PDF forms\n---\nx\n');
    skill(home, 'hidden', '---\nuser-invocable: false\n---\n# Hidden helper\n\nMore.\n');
    command(home, 'standup.md', '# Daily standup\nSummarise yesterday.\n\nSecond paragraph.\n');
    const runtime = await runtimeWith();
    const all = await listSlashCommands(runtime);
    expect(all.map((c) => [c.name, c.kind, c.source, c.description, c.userInvocable, c.modelInvocable])).toEqual([
      ['hidden', 'skill', 'user', 'Hidden helper', false, true],
      ['pdf', 'skill', 'project', 'PDF forms', true, true],
      ['standup', 'command', 'user', 'Daily standup Summarise yesterday.', true, true],
    ]);
    expect(await slashCommandInit(runtime)).toEqual({ slashCommands: ['pdf', 'standup'], skills: ['hidden', 'pdf'] });
  });

  it('a runtime that reads no setting sources has none', async () => {
    skill(project, 'pdf', 'x\n');
    const runtime = await runtimeWith({ settings: { sources: [] } });
    expect(await slashCommandInit(runtime)).toEqual({ slashCommands: [], skills: [] });
  });
});
