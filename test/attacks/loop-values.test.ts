/**
 * docs/security.md, "A loop's variable judged as its glob". The engine judges `for f in *.md; do cat "$f"; done` as
 * `cat *.md`; a model after an injection tries to make `f` hold the denied `.env` before the read. Each case is first
 * run with real bash in a real project, to show that it does print the secret, then judged by the engine in
 * bypassPermissions (the mode where only a Read deny still holds): it must not be allowed. The cases fail without the
 * closure rules of src/permissions/bash/loop-values.ts (checked by disabling them).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../../src/permissions/permission-context.js';
import { resolvePermission } from '../../src/permissions/resolve.js';
import { loadBashParser } from '../../src/permissions/bash/parser.js';
import { BashTool } from '../../src/tools/bash/index.js';

const SECRET = 'S3CRET-loop-values-0815';
const proj = realpathSync(mkdtempSync(join(tmpdir(), 'tg-loop-attack-')));
afterAll(() => rmSync(proj, { recursive: true, force: true }));

beforeAll(async () => {
  await loadBashParser();
  writeFileSync(join(proj, '.env'), `TOKEN=${SECRET}\n`);
  writeFileSync(join(proj, 'README.md'), 'readme\n');
  writeFileSync(join(proj, 'list'), '.env\n');
  writeFileSync(join(proj, 'setf'), 'f=.env\n');
});

const bash = (command: string) => execFileSync('bash', ['-c', command], { cwd: proj, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

async function judged(command: string, cwd = proj) {
  const ctx = createPermissionContext({ cwd, mode: 'bypassPermissions', rules: parseRules(['Read(./.env)'], 'deny', 'projectSettings') });
  return (await resolvePermission(BashTool, { command }, ctx)).behavior;
}

describe('a loop variable changed before its read is judged as written', () => {
  it.each([
    'for f in *.md; do read f < list; cat "$f"; done',
    'for f in *.md; do printf -v f %s .env; cat "$f"; done',
    'for f in *.md; do . ./setf; cat "$f"; done',
    'for f in *.md; do source ./setf; cat "$f"; done',
    'for f in *.md; do : "${f:=x}"; f=; : "${f:=.env}"; cat "$f"; done',
    'for f in *.md; do mapfile -t f < list; cat "$f"; done',
    'for f in *.md; do builtin read f < list; cat "$f"; done',
    'for f in *.md; do command read f < list; cat "$f"; done',
    'for f in *.md; do for f in .env; do :; done; cat "$f"; done',
    'g() { f=.env; }; for f in *.md; do g; cat "$f"; done',
    // A builtin's name spelled with backslashes is the builtin (bash removes the quoting before the lookup).
    'for f in *.md; do \\. ./setf; cat "$f"; done',
    'for f in *.md; do \\source ./setf; cat "$f"; done',
    'for f in *.md; do so\\urce ./setf; cat "$f"; done',
    'for f in *.md; do so\\\nurce ./setf; cat "$f"; done',
    // `jobs -x` runs its command in this shell.
    'for f in *.md; do jobs -x . ./setf; cat "$f"; done',
    'for f in *.md; do jobs -x source ./setf; cat "$f"; done',
    // `$_` is the previous command's last argument, whatever the loop set.
    'for _ in *.md; do : .env; cat "$_"; done',
    'for _ in *.md; do : .env; cat "${_}"; done',
  ])('%j', async (command) => {
    expect(bash(command)).toContain(SECRET);
    expect(await judged(command)).not.toBe('allow');
  });

  it('the everyday loop it was made for is allowed, and reads no secret', async () => {
    const command = 'for f in *.md; do wc -l "$f"; done';
    expect(bash(command)).not.toContain(SECRET);
    expect(await judged(command)).toBe('allow');
  });
});

/**
 * The loop's glob matches names a cloned repository brings, and bash passes each as one word: `--from-file=.env` is an
 * option to diff, `1e cat .env` is sed code. The judged `diff * README.md` must see the same words (read-deny.ts checks
 * a glob's matches as the words they are, not only as paths). Each case in its own project holding only that name.
 */
describe('a name the repository brings, passed by the loop', () => {
  let n = 0;
  function project(name: string): string {
    const dir = join(proj, `repo${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, '.env'), `TOKEN=${SECRET}\n`);
    writeFileSync(join(dir, 'README.md'), 'readme\n');
    writeFileSync(join(dir, name), '');
    return dir;
  }
  // What the model sees: stdout and stderr (diff and sort print the secret in an error message, and exit non-zero).
  const both = (command: string, cwd: string) => {
    const r = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return `${r.stdout}${r.stderr}`;
  };

  it.each([
    ['--from-file=.env', 'for f in *; do diff "$f" README.md; done'],
    ['--files0-from=.env', 'for f in *; do wc -l "$f"; done'],
    ['--files0-from=.env', 'for f in *; do sort "$f"; done'],
    ['1e cat .env', 'for f in *; do sed -n "$f" README.md; done'],
    ['1e cat .env #.md', 'for f in *.md; do sed -n "$f" README.md; done'],
    ['BEGIN{system("cat .env")}', 'for f in *; do awk "$f" README.md; done'],
    // The same glob written directly: the engine judged its matches as paths only.
    ['1e cat .env', 'sed -n * README.md'],
    ['--from-file=.env', 'diff -- README.md *; diff * README.md'],
  ])('%j: %j', async (name, command) => {
    const dir = project(name);
    expect(both(command, dir)).toContain(SECRET);
    expect(await judged(command, dir)).not.toBe('allow');
  });

  it('plain names still let the everyday loop and glob through', async () => {
    const dir = project('notes.md');
    for (const command of ['for f in *.md; do wc -l "$f"; done', 'sed -n 1p *.md', 'for f in *; do head -1 "$f"; done']) {
      expect(both(command, dir)).not.toContain(SECRET);
      expect(await judged(command, dir), command).toBe('allow');
    }
  });
});
