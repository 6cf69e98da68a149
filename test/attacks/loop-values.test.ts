/**
 * docs/security.md, "A loop's variable judged as its glob". The engine judges `for f in *.md; do cat "$f"; done` as
 * `cat *.md`; a model after an injection tries to make `f` hold the denied `.env` before the read. Each case is first
 * run with real bash in a real project, to show that it does print the secret, then judged by the engine in
 * bypassPermissions (the mode where only a Read deny still holds): it must not be allowed. The cases fail without the
 * closure rules of src/permissions/bash/loop-values.ts (checked by disabling them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

async function judged(command: string) {
  const ctx = createPermissionContext({ cwd: proj, mode: 'bypassPermissions', rules: parseRules(['Read(./.env)'], 'deny', 'projectSettings') });
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
