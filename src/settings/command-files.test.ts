import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverCommandFiles, MAX_COMMAND_FILE_BYTES, readCommandFile } from './command-files.js';
import { parseCommandMarkdown } from './command-frontmatter.js';
import { splitRuleList } from '../permissions/permission-rule.js';

let dir: string;
let project: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-cmdfiles-'));
  project = path.join(dir, 'project');
  home = path.join(dir, 'home');
  mkdirSync(project);
  mkdirSync(home);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
const skill = (root: string, name: string, text = `---\ndescription: ${name} skill\n---\nDo ${name}.\n`) => put(path.join(root, '.claude', 'skills', name, 'SKILL.md'), text);
const command = (root: string, rel: string, text = 'Run it.\n') => put(path.join(root, '.claude', 'commands', rel), text);

describe('discoverCommandFiles', () => {
  it('finds project and user skills and commands; subfolders namespace commands with ":"', () => {
    skill(project, 'deploy');
    skill(home, 'notes');
    command(project, 'review.md');
    command(project, 'frontend/test.md');
    command(project, 'frontend/deep/lint.md');
    command(home, 'standup.md');
    put(path.join(project, '.claude', 'commands', 'README.txt'), 'not a command');
    mkdirSync(path.join(project, '.claude', 'skills', 'empty-folder'), { recursive: true });
    const { files, warnings } = discoverCommandFiles({ projectDir: project, homeDir: home });
    expect(warnings).toEqual([]);
    expect(files.map((f) => [f.name, f.kind, f.scope])).toEqual([
      ['deploy', 'skill', 'project'],
      ['frontend:deep:lint', 'command', 'project'],
      ['frontend:test', 'command', 'project'],
      ['notes', 'skill', 'user'],
      ['review', 'command', 'project'],
      ['standup', 'command', 'user'],
    ]);
    const test = files.find((f) => f.name === 'frontend:test')!;
    expect(test).toMatchObject({ namespace: 'frontend', baseDir: path.join(project, '.claude', 'commands', 'frontend') });
    expect(files.find((f) => f.name === 'deploy')!.baseDir).toBe(path.join(project, '.claude', 'skills', 'deploy'));
  });

  it('honours the setting sources: project only, user only, none', () => {
    skill(project, 'p');
    skill(home, 'u');
    const names = (sources: ('user' | 'project' | 'local' | 'managed')[]) => discoverCommandFiles({ projectDir: project, homeDir: home, sources }).files.map((f) => f.name);
    expect(names(['project'])).toEqual(['p']);
    expect(names(['user', 'local'])).toEqual(['u']);
    expect(names([])).toEqual([]);
  });

  it('one name: a skill beats a command, the user folder beats the project', () => {
    command(project, 'deploy.md');
    skill(project, 'deploy');
    skill(project, 'shared');
    skill(home, 'shared');
    command(project, 'mine.md');
    command(home, 'mine.md');
    const { files } = discoverCommandFiles({ projectDir: project, homeDir: home });
    expect(files.map((f) => `${f.name}:${f.kind}:${f.scope}`)).toEqual(['deploy:skill:project', 'mine:command:user', 'shared:skill:user']);
  });

  it('skips, with a warning naming the file, a SKILL.md that is too large, not a regular file or linked out of the project; follows symlinked skill folders inside it', () => {
    const big = skill(project, 'big', `---\ndescription: big\n---\n${'x'.repeat(MAX_COMMAND_FILE_BYTES)}\n`);
    mkdirSync(path.join(project, '.claude', 'skills', 'odd', 'SKILL.md'), { recursive: true });
    const fifo = path.join(project, '.claude', 'skills', 'pipe', 'SKILL.md');
    mkdirSync(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const shared = path.join(project, 'shared', 'linked');
    put(path.join(shared, 'SKILL.md'), 'Linked.\n');
    symlinkSync(shared, path.join(project, '.claude', 'skills', 'linked'));
    const elsewhere = path.join(dir, 'elsewhere', 'outside');
    put(path.join(elsewhere, 'SKILL.md'), 'Outside.\n');
    symlinkSync(elsewhere, path.join(project, '.claude', 'skills', 'outside'));
    const { files, warnings } = discoverCommandFiles({ projectDir: project, homeDir: home });
    expect(files.map((f) => f.name)).toEqual(['linked']);
    expect(warnings).toHaveLength(4);
    expect(warnings.find((w) => w.startsWith(path.join(project, '.claude', 'skills', 'outside')))).toMatch(/leads outside the project/);
    expect(warnings.find((w) => w.startsWith(big))).toMatch(/more than the 262144-byte limit/);
    expect(warnings.find((w) => w.startsWith(path.join(project, '.claude', 'skills', 'odd', 'SKILL.md')))).toMatch(/not a regular file/);
    expect(warnings.find((w) => w.startsWith(fifo))).toMatch(/not a regular file/);
  });

  it('reads a file only when asked, and checks it again then', async () => {
    const file = skill(project, 'later');
    const { files } = discoverCommandFiles({ projectDir: project, homeDir: home });
    writeFileSync(file, '---\ndescription: changed\n---\nNew body.\n');
    const content = await readCommandFile(files[0]!);
    expect(content.frontmatter.description).toBe('changed');
    expect(content.body).toBe('New body.\n');
    writeFileSync(file, 'y'.repeat(MAX_COMMAND_FILE_BYTES + 1));
    await expect(readCommandFile(files[0]!)).rejects.toThrow(`${file}: ${MAX_COMMAND_FILE_BYTES + 1} bytes`);
  });
});

describe('frontmatter', () => {
  it('reads the fields Claude Code reads, booleans in every spelling, tool lists as strings or lists', () => {
    const text = [
      '---',
      'name: Deploy it',
      'description: Deploy the app',
      'when_to_use: when asked to ship',
      'argument-hint: [environment] [version]',
      'arguments: [env, version]',
      'allowed-tools: Bash(git add *), Bash(git commit *) Read',
      'model: claude-haiku-4-5',
      'disable-model-invocation: Yes',
      'user-invocable: off',
      'unknown-key: kept quiet',
      '---',
      'Deploy $env.',
    ].join('\n');
    const parsed = parseCommandMarkdown(text, '/x/SKILL.md');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.body).toBe('Deploy $env.');
    expect(parsed.frontmatter).toEqual({
      name: 'Deploy it',
      description: 'Deploy the app',
      whenToUse: 'when asked to ship',
      argumentHint: '[environment] [version]',
      arguments: ['env', 'version'],
      allowedTools: ['Bash(git add *)', 'Bash(git commit *)', 'Read'],
      model: 'claude-haiku-4-5',
      disableModelInvocation: true,
      userInvocable: false,
    });
    const listForm = parseCommandMarkdown('---\nallowed-tools:\n  - Read\n  - Bash(npm test)\nargument-hint: [message]\nmodel: inherit\n---\nx', 'f');
    expect(listForm.frontmatter).toMatchObject({ allowedTools: ['Read', 'Bash(npm test)'], argumentHint: '[message]' });
    expect(listForm.frontmatter.model).toBeUndefined();
  });

  it('invalid frontmatter: a warning naming the file and the line, the body still loads, nothing throws', () => {
    const parsed = parseCommandMarkdown('---\ndescription: fine\nallowed-tools: [Read\n---\nThe body.\n', '/p/.claude/skills/x/SKILL.md');
    expect(parsed.body).toBe('The body.\n');
    expect(parsed.frontmatter).toEqual({ arguments: [], allowedTools: [], disableModelInvocation: false, userInvocable: true });
    expect(parsed.warnings).toHaveLength(1);
    expect(parsed.warnings[0]).toMatch(/^\/p\/\.claude\/skills\/x\/SKILL\.md: the frontmatter is not valid YAML \(line \d+\)/);
    expect(parseCommandMarkdown('---\njust a sentence\n---\nb', 'f').warnings[0]).toMatch(/^f: the frontmatter is not a set of "key: value" lines/);
    expect(parseCommandMarkdown('---\ndescription: x\nno end', 'f').warnings[0]).toMatch(/no closing "---"/);
    const wrongTypes = parseCommandMarkdown('---\ndescription: {a: 1}\ndisable-model-invocation: maybe\nallowed-tools: 5\n---\nb', 'f');
    expect(wrongTypes.warnings).toEqual([
      'f: "description" should be text; ignored',
      'f: "allowed-tools" should be a list or a string; ignored',
      'f: "disable-model-invocation" should be true or false (got "maybe"); using false',
    ]);
  });

  it('no frontmatter: the whole text is the body', () => {
    expect(parseCommandMarkdown('Just do it.\n', 'f')).toEqual({
      frontmatter: { arguments: [], allowedTools: [], disableModelInvocation: false, userInvocable: true },
      body: 'Just do it.\n',
      warnings: [],
    });
  });

  it('splitRuleList keeps parentheses together', () => {
    expect(splitRuleList('Bash(git commit -m "a, b"), Read  Grep')).toEqual(['Bash(git commit -m "a, b")', 'Read', 'Grep']);
  });
});
