/**
 * The Skill tool through the real pipeline: a runtime over temp project and home folders with real skills and
 * commands, headless (what would ask is denied), real Bash and Read for `!` lines and `@` files.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../agent/create-tool-runtime.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../../agent/types.js';
import { textOf } from '../../../test/helpers/execution.js';
import { SKILL_LISTING_BUDGET_CHARS } from './prompt.js';

let dir: string;
let project: string;
let home: string;
const runtimes: ToolRuntime[] = [];
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-skill-')));
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
const skill = (root: string, name: string, text: string) => put(path.join(root, '.claude', 'skills', name, 'SKILL.md'), text);
const command = (root: string, rel: string, text: string) => put(path.join(root, '.claude', 'commands', rel), text);

async function runtimeWith(options: ToolRuntimeOptions = {}): Promise<ToolRuntime> {
  const runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(dir, 'session'), sessionId: 'sess-1', ...options, settings: { homeDir: home, sources: ['project', 'user'], ...options.settings } });
  runtimes.push(runtime);
  return runtime;
}

let n = 0;
async function call(runtime: ToolRuntime, name: string, input: Record<string, unknown>) {
  const result = await runtime.run([{ type: 'tool_use', id: `toolu_s${++n}`, name, input }]);
  return { outcome: result.outcomes[0]!, message: result.message, text: textOf(result.results[0]!.content), after: result.newMessages.map((m) => textOf(m.content)).join('\n') };
}

describe('Skill tool', () => {
  it('is in the pool only when the session has skills or commands', async () => {
    expect((await runtimeWith()).tools.map((t) => t.name)).not.toContain('Skill');
    command(project, 'review.md', 'Review.\n');
    expect((await runtimeWith()).tools.map((t) => t.name)).toContain('Skill');
    // Setting sources off: the user's folder is not read.
    skill(home, 'notes', 'Notes.\n');
    rmSync(path.join(project, '.claude'), { recursive: true });
    expect((await runtimeWith({ settings: { sources: ['project'] } })).tools.map((t) => t.name)).not.toContain('Skill');
  });

  it('its description lists what the model may run, by name and description; user-only ones are left out', async () => {
    skill(project, 'pdf', '---\ndescription: Fill and read PDF forms\nwhen_to_use: when a .pdf is mentioned\n---\nBody that stays out of the description.\n');
    skill(home, 'deploy', '---\ndescription: Deploy to production\ndisable-model-invocation: true\n---\nDeploy.\n');
    command(project, 'frontend/test.md', '---\nargument-hint: [file]\n---\nRun the frontend tests for $ARGUMENTS.\n\nMore text.\n');
    const runtime = await runtimeWith();
    const [definition] = (await runtime.definitions()).filter((d) => d.name === 'Skill');
    const description = (definition as { description: string }).description;
    expect(description).toContain('- pdf: Fill and read PDF forms when a .pdf is mentioned');
    expect(description).toContain('- frontend:test [file]: Run the frontend tests for $ARGUMENTS.');
    expect(description).not.toContain('deploy');
    expect(description).not.toContain('Body that stays out');
    expect(description.length).toBeLessThan(SKILL_LISTING_BUDGET_CHARS + 2000);
  });

  it('a call loads the whole SKILL.md after its result: base directory, arguments substituted', async () => {
    skill(project, 'release', '---\ndescription: Cut a release\narguments: [version]\n---\nRelease $version ($0) from ${CLAUDE_SKILL_DIR}; all: $ARGUMENTS. See [notes](notes.md).\n');
    put(path.join(project, '.claude', 'skills', 'release', 'notes.md'), 'the notes\n');
    const runtime = await runtimeWith();
    const { outcome, text, after, message } = await call(runtime, 'Skill', { skill: 'release', args: '1.2.3 "final cut"' });
    expect(outcome.isError).toBe(false);
    expect(text).toBe('Launching skill: release');
    const base = path.join(project, '.claude', 'skills', 'release');
    expect(after).toBe(`Base directory for this skill: ${base}\n\nRelease 1.2.3 (1.2.3) from ${base}; all: 1.2.3 "final cut". See [notes](notes.md).\n`);
    // One user message: the tool_result, then the skill's text.
    expect(Array.isArray(message.content) && message.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });

  it('commands run through it too (Claude Code folded SlashCommand into Skill); a leading slash is accepted', async () => {
    command(project, 'greet.md', 'Say hello to $ARGUMENTS.\n');
    const runtime = await runtimeWith();
    const { text, after } = await call(runtime, 'Skill', { skill: '/greet', args: 'Ada' });
    expect(text).toBe('Launching skill: greet');
    expect(after).toBe('Say hello to Ada.\n');
  });

  it('refuses an unknown name (listing the known ones) and a user-only one (disable-model-invocation)', async () => {
    skill(project, 'pdf', 'PDF.\n');
    skill(project, 'deploy', '---\ndisable-model-invocation: yes\n---\nDeploy.\n');
    const runtime = await runtimeWith();
    const unknown = await call(runtime, 'Skill', { skill: 'nope' });
    expect(unknown.outcome.isError).toBe(true);
    expect(unknown.text).toContain('Unknown skill "nope". Available: pdf.');
    const userOnly = await call(runtime, 'Skill', { skill: 'deploy' });
    expect(userOnly.outcome.isError).toBe(true);
    expect(userOnly.text).toContain('can only be run by the user (disable-model-invocation)');
    expect(userOnly.after).toBe('');
  });

  it('Skill(name) rules decide like any rule: a denied skill does not load', async () => {
    skill(project, 'deploy', 'Deploy now.\n');
    skill(project, 'pdf', 'PDF.\n');
    const runtime = await runtimeWith({ rules: { deny: ['Skill(deploy)'] } });
    const denied = await call(runtime, 'Skill', { skill: 'deploy' });
    expect(denied.outcome.isError).toBe(true);
    expect(denied.outcome.stage).toBe('permission');
    expect(denied.after).not.toContain('Deploy now');
    expect((await call(runtime, 'Skill', { skill: 'pdf' })).outcome.isError).toBe(false);
  });

  it('`!` lines run through the permission engine: an allowed command\'s output is inlined, a denied one is not', async () => {
    skill(project, 'ctx', 'Branch: !`echo on-main`\nSecret: !`cat secret.txt`\n```!\necho fenced-one\necho fenced-two\n```\n');
    writeFileSync(path.join(project, 'secret.txt'), 'TOP-SECRET-VALUE\n');
    const runtime = await runtimeWith({ rules: { deny: ['Bash(cat secret.txt)'] } });
    const { outcome, after } = await call(runtime, 'Skill', { skill: 'ctx' });
    expect(outcome.isError).toBe(false);
    expect(after).toContain('Branch: on-main');
    expect(after).toContain('fenced-one\nfenced-two');
    expect(after).not.toContain('TOP-SECRET-VALUE');
    expect(after).toMatch(/Secret: \[shell command not run: `cat secret.txt` was refused — .*Bash\(cat secret\.txt\)/);
  });

  it('`@` files are read with Read through the engine: an allowed one is inlined, a denied one is not', async () => {
    skill(project, 'review', 'Review @src/a.ts and @.env, ignore me@example.com and @missing.ts.\n');
    put(path.join(project, 'src', 'a.ts'), 'export const a = 1;\n');
    put(path.join(project, '.env'), 'API_TOKEN=hunter2-secret\n');
    const runtime = await runtimeWith({ rules: { deny: ['Read(.env)'] } });
    const { after } = await call(runtime, 'Skill', { skill: 'review' });
    expect(after).toContain(`Contents of @src/a.ts (${path.join(project, 'src', 'a.ts')}):`);
    expect(after).toContain('export const a = 1;');
    expect(after).not.toContain('hunter2');
    expect(after).toMatch(/\[@\.env was not read: .*Read\(\.env\)/);
    expect(after).not.toContain('missing.ts was not read');
  });

  it('allowed-tools narrow the agent\'s calls while the skill is active, never widen them; the turn\'s end lifts them', async () => {
    skill(project, 'git-only', '---\nallowed-tools: Bash(git status *), Bash(rm *)\n---\nOnly look at git.\n');
    const runtime = await runtimeWith({ rules: { allow: ['Bash(mkdir *)', 'Bash(git status *)'], deny: ['Bash(rm *)'] } });
    // Before: allowed by the rule.
    const before = await call(runtime, 'Bash', { command: 'mkdir -p build' });
    expect(before.outcome.stage).not.toBe('permission');
    const loaded = await call(runtime, 'Skill', { skill: 'git-only' });
    expect(loaded.outcome.isError).toBe(false);
    expect(runtime.permissionContext.allowCeilings?.map((c) => c.label)).toEqual(['skill "git-only"']);
    const narrowed = await call(runtime, 'Bash', { command: 'mkdir -p build' });
    expect(narrowed.outcome.stage).toBe('permission');
    expect(narrowed.text).toContain('skill "git-only" is active');
    expect((await call(runtime, 'Bash', { command: 'git status --short' })).outcome.stage).not.toBe('permission');
    // Listed in allowed-tools, denied by a rule: still denied.
    const rm = await call(runtime, 'Bash', { command: 'rm -rf build' });
    expect(rm.outcome.stage).toBe('permission');
    expect(rm.text).toContain('Bash(rm *)');
    const { endCommandTurn } = await import('../../agent/slash-commands.js');
    endCommandTurn(runtime);
    expect(runtime.permissionContext.allowCeilings).toBeUndefined();
    expect((await call(runtime, 'Bash', { command: 'mkdir -p build' })).outcome.stage).not.toBe('permission');
  });

  it('invalid frontmatter: a warning naming the file through the runtime, and the skill still loads', async () => {
    skill(project, 'broken', '---\ndescription: fine\nallowed-tools: [Read\n---\nStill here.\n');
    const runtime = await runtimeWith();
    const { after } = await call(runtime, 'Skill', { skill: 'broken' });
    expect(after).toContain('Still here.');
    expect(runtime.warnings.some((w) => w.startsWith(path.join(project, '.claude', 'skills', 'broken', 'SKILL.md')) && w.includes('not valid YAML'))).toBe(true);
  });
});
