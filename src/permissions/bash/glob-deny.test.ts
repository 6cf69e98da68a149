/**
 * Issue 21's class "a glob that can expand to a denied path is checked against its expansion, or asked", with the
 * documented `Read(./.env)` deny read in its wider sense (also `.env` in any folder). Real files in a temp project;
 * every member is decided in default mode and in bypassPermissions, which must not pass it either.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Shell } from '../test-helpers/tools.js';

const proj = realpathSync(mkdtempSync(path.join(tmpdir(), 'tg-glob-deny-')));
afterAll(() => rmSync(proj, { recursive: true, force: true }));
mkdirSync(path.join(proj, 'src', 'deep'), { recursive: true });
for (const f of ['.env', 'src/.env', 'src/deep/.env.local', 'a.txt', 'src/a.ts']) writeFileSync(path.join(proj, f), 'x\n');

async function decide(command: string, mode: 'default' | 'bypassPermissions', deny = ['Read(./.env)', 'Read(./.env.*)']) {
  const ctx = createPermissionContext({ cwd: proj, mode, rules: parseRules(deny, 'deny', 'projectSettings') });
  const d = await resolvePermission(Shell, { command }, ctx);
  return { behavior: d.behavior, layer: d.decisionReason?.layer };
}

describe('globs are checked against what they expand to', () => {
  it.each([
    'cat .e*',
    'cat .[e]nv',
    'head .en?',
    'cat {.env,a.txt}',
    'grep x .e*',
    'cat src/.e*',
    'cat */.env',
    'cat */*/.env*',
    'cd src && cat .e*',
    'cd src/deep && cat .env.*',
    'cat ./src/.env',
    'tail -n1 src/deep/.env.local',
  ])('%j: denied (the expansion names a denied file), in every mode', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(await decide(command, mode), `${mode}`).toEqual({ behavior: 'deny', layer: 'denyRule' });
    }
  });

  it.each(['cat $D/.e*', 'cat .@(env)', 'cat "$(ls -a | grep env)"', 'cd "$X" && cat .e*'])('%j: cannot be expanded here, so the deny rule cannot be ruled out (asked, bypass included)', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(await decide(command, mode), `${mode}`).toEqual({ behavior: 'ask', layer: 'askRule' });
    }
  });

  it.each(['cat *.txt', 'cat src/*.ts', 'ls -a', 'cat .E*'])('%j: expands to nothing denied, still allowed', async (command) => {
    expect(await decide(command, 'default')).toEqual({ behavior: 'allow', layer: 'readOnly' });
  });
});
