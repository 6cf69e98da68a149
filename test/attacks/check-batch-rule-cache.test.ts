/**
 * `toolgate check` reads each rule a request gives once per content and shares the result with every later line that
 * names it (cli/commands/check-request-rules.ts; docs/security.md, "check --batch: rules read once per content"). The
 * attacker writes later lines of a batch — a policy suite's cases, a replayed transcript — and reuses a rule's exact
 * text under another behaviour, source or root: the shared rule must be the one that line describes, or a deny
 * written once would answer for an allow with the same text, and a pattern anchored at one settings root would judge
 * lines whose rule is anchored at another. Each case fails when the cache's key is narrowed to the rule's text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchAnswers } from '../../src/cli/commands/check-batch.js';
import { CheckEngine } from '../../src/cli/commands/check-request.js';
import { createCheckToolResolver } from '../../src/cli/commands/check-tools.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-batch-rule-cache-attack-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  for (const f of [path.join(proj, '.env'), path.join(proj, 'secrets', 'key.pem'), path.join(tmp, 'other', 'secrets', 'key.pem')]) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, 'secret');
  }
  fs.mkdirSync(home, { recursive: true });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Answer = { behavior?: string; layer?: string; source?: string | null; rule?: string | null; error?: string };

/** One engine for the whole batch, each line its own chunk: what a suite piped into one `check --batch` gets. */
function batch() {
  const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj, home }));
  return async (request: Record<string, unknown>): Promise<Answer> => {
    const { text } = await answers.answerChunk([JSON.stringify({ cwd: proj, home, ...request })]);
    return JSON.parse(text) as Answer;
  };
}

describe('a rule read once is shared only with lines that give it the same behaviour, source and root', () => {
  it('the same text as a deny, then as an allow: the allow is an allow', async () => {
    const ask = batch();
    const file = { tool: 'Read', input: { file_path: path.join(proj, '.env') } };
    expect(await ask({ id: 1, ...file, rules: [{ source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' }] })).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
    // Outside the working directory only an allow rule lets a read through: the second line's rule must be its allow.
    const outside = { tool: 'Read', input: { file_path: path.join(tmp, 'other', 'secrets', 'key.pem') } };
    const rule = `Read(/${path.join(tmp, 'other')}/**)`;
    expect(await ask({ id: 2, ...outside, rules: [{ source: 'userSettings', behavior: 'deny', rule }] })).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
    expect(await ask({ id: 3, ...outside, rules: [{ source: 'userSettings', behavior: 'allow', rule }] })).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    expect(await ask({ id: 4, ...outside, rules: [{ source: 'userSettings', behavior: 'ask', rule }] })).toMatchObject({ behavior: 'ask', layer: 'askRule' });
  });

  it('the same `/path` text from two settings sources: each anchored at its own root', async () => {
    const ask = batch();
    const key = { tool: 'Read', input: { file_path: path.join(proj, 'secrets', 'key.pem') } };
    // userSettings anchors `/secrets` at ~/.claude: the project's secrets stay readable.
    expect(await ask({ id: 1, ...key, rules: [{ source: 'userSettings', behavior: 'deny', rule: 'Read(/secrets/**)' }] })).toMatchObject({ behavior: 'allow' });
    // projectSettings anchors it at the project: denied, and the answer names the source the line gave.
    expect(await ask({ id: 2, ...key, rules: [{ source: 'projectSettings', behavior: 'deny', rule: 'Read(/secrets/**)' }] })).toMatchObject({ behavior: 'deny', source: 'projectSettings' });
    expect(await ask({ id: 3, ...key, rules: [{ source: 'localSettings', behavior: 'deny', rule: 'Read(/secrets/**)' }] })).toMatchObject({ behavior: 'deny', source: 'localSettings' });
  });

  it('the same text with two roots: each anchored at its own', async () => {
    const ask = batch();
    const key = { tool: 'Read', input: { file_path: path.join(tmp, 'other', 'secrets', 'key.pem') } };
    const rule = (root: string) => [{ source: 'projectSettings', behavior: 'deny', rule: 'Read(/secrets/**)', root }];
    expect(await ask({ id: 1, ...key, rules: rule(proj) })).toMatchObject({ behavior: 'ask' });
    expect(await ask({ id: 2, ...key, rules: rule(path.join(tmp, 'other')) })).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
    expect(await ask({ id: 3, ...key, rules: rule(proj) })).toMatchObject({ behavior: 'ask' });
  });
});
