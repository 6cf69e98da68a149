import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFileReferences, findShellCommands, splitArguments, substitutePlaceholders } from './command-render.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-render-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sub = (body: string, args = '', argumentNames: string[] = [], skillDir?: string) =>
  substitutePlaceholders({ body, args, argumentNames, projectDir: '/proj', sessionId: 'sess-9', ...(skillDir ? { skillDir } : {}) });

describe('placeholders (Claude Code 2.1)', () => {
  it('$ARGUMENTS as typed; $N and $ARGUMENTS[N] 0-based with shell quoting; a missing index stays as written', () => {
    expect(sub('Fix $ARGUMENTS now', '123 "high prio"')).toBe('Fix 123 "high prio" now');
    expect(sub('Migrate $0 from $1 to $2; $ARGUMENTS[1] again; $3 stays', 'SearchBar "React 18" Vue')).toBe('Migrate SearchBar from React 18 to Vue; React 18 again; $3 stays');
  });

  it('named arguments map to positions (missing: empty); longer names win; $name-suffix is not $name', () => {
    expect(sub('Issue $issue on $branch ($issue-id)', '42', ['issue', 'branch'])).toBe('Issue 42 on  ($issue-id)');
    expect(sub('$env / $environment', 'a b', ['env', 'environment'])).toBe('a / b');
  });

  it('a single backslash escapes an argument placeholder; a doubled one does not', () => {
    expect(sub('Costs \\$1.00, \\$ARGUMENTS, \\\\$0', 'x')).toBe('Costs $1.00, $ARGUMENTS, \\\\x');
  });

  it('${CLAUDE_SKILL_DIR}, ${CLAUDE_PROJECT_DIR}, ${CLAUDE_SESSION_ID}; the skill dir only for skills', () => {
    expect(sub('${CLAUDE_SKILL_DIR}/run.sh in ${CLAUDE_PROJECT_DIR} for ${CLAUDE_SESSION_ID}', '', [], '/skills/x')).toBe('/skills/x/run.sh in /proj for sess-9');
    expect(sub('${CLAUDE_SKILL_DIR}/run.sh')).toBe('${CLAUDE_SKILL_DIR}/run.sh');
  });

  it('arguments and no placeholder: ARGUMENTS: is appended; an argument\'s own text is not substituted again', () => {
    expect(sub('Do the thing.\n', 'with care')).toBe('Do the thing.\n\nARGUMENTS: with care');
    expect(sub('Do the thing.\n')).toBe('Do the thing.\n');
    expect(sub('Say $ARGUMENTS', '$1 ${CLAUDE_SESSION_ID}')).toBe('Say $1 ${CLAUDE_SESSION_ID}');
  });

  it('splitArguments: quotes group and are removed, backslashes escape', () => {
    expect(splitArguments(`a "b c" 'd e' f\\ g "" h`)).toEqual(['a', 'b c', 'd e', 'f g', '', 'h']);
    expect(splitArguments('   ')).toEqual([]);
  });
});

describe('shell lines', () => {
  it('!`cmd` at a line start or after whitespace, and ```! blocks; not after another character', () => {
    const text = 'Status: !`git status`\n!`pwd`\nKEY=!`nope`\n```!\nnode --version\nnpm --version\n```\nend';
    expect(findShellCommands(text).map((c) => c.command)).toEqual(['git status', 'pwd', 'node --version\nnpm --version']);
    const [first] = findShellCommands(text);
    expect(text.slice(first!.start, first!.end)).toBe('!`git status`');
  });
});

describe('@ references', () => {
  it('existing files only, relative to the directory or ~/, trailing punctuation dropped, each once', () => {
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'src', 'a.ts'), 'a');
    mkdirSync(path.join(dir, 'home'), { recursive: true });
    writeFileSync(path.join(dir, 'home', 'notes.md'), 'n');
    const refs = findFileReferences('See @src/a.ts, then @~/notes.md.\nAlso @src/a.ts and @src and me@src/a.ts and @missing.ts', dir, path.join(dir, 'home'));
    expect(refs).toEqual([
      { written: 'src/a.ts', file: path.join(dir, 'src', 'a.ts') },
      { written: '~/notes.md', file: path.join(dir, 'home', 'notes.md') },
    ]);
  });
});
