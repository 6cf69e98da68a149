/**
 * loop-values.ts: a loop's `"$f"` judged as the loop's glob. Everyday loops over plain globs are judged like the
 * glob itself (no prompt where the glob would not prompt); a loop over a denied name is denied; every way the variable
 * could hold something else is judged as written (asked — in bypassPermissions too, under a Read deny).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionContext, parseRules } from '../permission-context.js';
import { resolvePermission } from '../resolve.js';
import { fakeBash as Shell } from '../test-helpers/tools.js';
import { loadBashParser, parseBash } from './parser.js';
import { loopSubstituted } from './loop-values.js';

const proj = realpathSync(mkdtempSync(path.join(tmpdir(), 'tg-loop-values-')));
afterAll(() => rmSync(proj, { recursive: true, force: true }));
mkdirSync(path.join(proj, 'src'), { recursive: true });
for (const f of ['.env', 'README.md', 'notes.md', 'src/a.ts', 'src/b.ts']) writeFileSync(path.join(proj, f), 'x\n');
beforeAll(async () => {
  await loadBashParser();
});

async function decide(command: string, mode: 'default' | 'bypassPermissions') {
  const ctx = createPermissionContext({ cwd: proj, mode, rules: parseRules(['Read(./.env)'], 'deny', 'projectSettings') });
  const d = await resolvePermission(Shell, { command }, ctx);
  return { behavior: d.behavior, layer: d.decisionReason?.layer };
}

describe("a loop's quoted variable is judged as the loop's word", () => {
  it.each([
    ['for f in *.md; do wc -l "$f"; done', 'for f in *.md; do wc -l *.md; done'],
    ['for f in src/*.ts; do echo "== $f"; head -3 "${f}"; done', 'for f in src/*.ts; do echo "== $f"; head -3 src/*.ts; done'],
    ['for x in a?.txt; do cat "$x" | wc -c; done', 'for x in a?.txt; do cat a?.txt | wc -c; done'],
  ])('%j is judged as %j', (command, judged) => {
    expect(loopSubstituted(command, parseBash(command)!.root)).toBe(judged);
  });

  it.each(['for f in *.md; do wc -l "$f"; done', 'for f in src/*.ts; do echo "== $f"; head -3 "$f"; done'])('%j: allowed (read-only, the glob cannot name .env)', async (command) => {
    expect(await decide(command, 'default')).toEqual({ behavior: 'allow', layer: 'readOnly' });
  });

  it.each(['for f in .e*; do cat "$f"; done', 'for f in .env; do head -1 "$f"; done', 'for f in ./.en?; do wc "$f"; done'])('%j: denied, in every mode', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) expect(await decide(command, mode), mode).toEqual({ behavior: 'deny', layer: 'denyRule' });
  });

  it.each([
    'for f in *.md; do f=.env; cat "$f"; done',
    'for f in *.md; do read f < list; cat "$f"; done',
    'for f in *.md; do printf -v f %s .env; cat "$f"; done',
    'for f in *.md; do eval "$CMD"; cat "$f"; done',
    'for f in *.md; do . ./setf; cat "$f"; done',
    'for f in *.md; do source ./setf; cat "$f"; done',
    'g() { f=.env; }; for f in *.md; do g; cat "$f"; done',
    'for f in *.md; do declare "$(printf "\\x66")=.env"; cat "$f"; done',
    'for f in *.md; do : "${f:=.env}"; cat "$f"; done',
    'for f in *.md; do mapfile -t f < list; cat "$f"; done',
    'for f in *.md; do let x=1; cat "$f"; done',
    'for f in *.md; do (( x = 1 )); cat "$f"; done',
    'for f in *.md; do trap "f=.env" DEBUG; cat "$f"; done',
    'for f in *.md; do builtin read f; cat "$f"; done',
    'for f in *.md; do command read f; cat "$f"; done',
    'for f in *.md; do for f in .env; do :; done; cat "$f"; done',
    'for f in *.md .env; do cat "$f"; done',
    'for f in $FILES; do cat "$f"; done',
    'for f in {README.md,.env}; do cat "$f"; done',
    'for f in ~/x; do cat "$f"; done',
    'for f; do cat "$f"; done',
    'for f in *.md; do cat $f; done',
    'for f in *.md; do cat "$f"x; done',
    'for f in *.md; do cat < "$f"; done',
    'for f in *.md; do "$f"; done',
    'for f in *.md; do x=${!y}; cat "$f"; done',
    'for f in *.md; do cat "$f"; done < .env',
    'for PATH in *.md; do cat "$PATH"; done',
  ])('%j: judged as written (asked, bypassPermissions too)', async (command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      const d = await decide(command, mode);
      expect(d.behavior, `${mode} ${JSON.stringify(d)}`).not.toBe('allow');
    }
  });
});
