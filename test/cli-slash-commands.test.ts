/**
 * `toolgate run -p "/name args"` end to end: the real CLI, a custom command and a skill in a temp project, the
 * scripted server as the model. HOME points into the temp folder, so the user's own skills are never read.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { MODEL_ALIASES } from '../src/tool/models.js';
import { toolgate } from './helpers/cli.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-cli-slash-')));
  work = path.join(dir, 'work');
  mkdirSync(path.join(work, '.claude', 'commands', 'git'), { recursive: true });
  mkdirSync(path.join(dir, 'home', '.claude', 'skills', 'haiku'), { recursive: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ...extra });
const flat = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

describe('toolgate run -p "/name args"', { timeout: 120_000 }, () => {
  it('expands the command (arguments, `!` lines through the engine, headless asks denied, @ files) and lists commands in init', async () => {
    writeFileSync(
      path.join(work, '.claude', 'commands', 'git', 'brief.md'),
      [
        '---',
        'description: Brief on the repository',
        'argument-hint: [topic]',
        'model: haiku',
        '---',
        'Brief me on $ARGUMENTS.',
        'Marker: !`echo allowed-output`',
        'Attempt: !`mkdir should-not-exist`',
        'Notes: @notes.txt',
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(work, 'notes.txt'), 'the notes say hi\n');
    writeFileSync(path.join(dir, 'home', '.claude', 'skills', 'haiku', 'SKILL.md'), '---\ndescription: Write a haiku\n---\nFive, seven, five.\n');
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Briefed.' }] }]);
    const run = await toolgate(['run', '-p', '/git:brief the release plan', '--output-format', 'stream-json', '--cwd', work], {
      env: env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', model: MODEL_ALIASES.haiku, slash_commands: ['git:brief', 'haiku'], skills: ['haiku'] });
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'Briefed.', is_error: false });

    const request = server.messageRequests[0]!.body;
    // The frontmatter's `haiku` is the alias of the one model table (src/tool/models.ts), not a fixed id.
    expect(request.model).toBe(MODEL_ALIASES.haiku);
    const prompt = flat(request.messages[0].content);
    expect(prompt).toContain('<command-name>/git:brief</command-name>');
    expect(prompt).toContain('Brief me on the release plan.');
    expect(prompt).toContain('Marker: allowed-output');
    expect(prompt).toMatch(/Attempt: \[shell command not run: `mkdir should-not-exist` was refused — [^\]]*headless/);
    expect(prompt).toContain('the notes say hi');
    expect(existsSync(path.join(work, 'should-not-exist'))).toBe(false);
    // The skill from the user's folder is offered to the model through the Skill tool.
    expect((request.tools as { name: string; description: string }[]).find((t) => t.name === 'Skill')!.description).toContain('- haiku: Write a haiku');
  });

  it('a prompt that only looks like a command is sent as it is; a model-only skill cannot be typed', async () => {
    writeFileSync(path.join(dir, 'home', '.claude', 'skills', 'haiku', 'SKILL.md'), '---\nuser-invocable: false\n---\nFive, seven, five.\n');
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'A path.' }] }]);
    const keyEnv = env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url });
    const plain = await toolgate(['run', '-p', '/etc/hosts is what?', '--cwd', work], { env: keyEnv });
    expect(plain.code).toBe(0);
    expect(flat(server.messageRequests[0]!.body.messages[0].content)).toContain('/etc/hosts is what?');
    const typed = await toolgate(['run', '-p', '/haiku', '--cwd', work], { env: keyEnv });
    expect(typed.code).toBe(1);
    expect(typed.stderr).toContain('/haiku can only be run by the model');
    expect(server.messageRequests).toHaveLength(1);
  });

  it('invalid frontmatter is a warning naming the file on stderr; the run goes on', async () => {
    const file = path.join(work, '.claude', 'commands', 'odd.md');
    writeFileSync(file, '---\nallowed-tools: [Read\n---\nOdd but fine.\n');
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'ok' }] }]);
    const run = await toolgate(['run', '-p', '/odd', '--cwd', work], { env: env({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url }) });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`toolgate: warning: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the frontmatter is not valid YAML`));
    expect(flat(server.messageRequests[0]!.body.messages[0].content)).toContain('Odd but fine.');
  });
});
