/**
 * CheckEngine across the requests of one batch: contexts built for earlier requests are reused only for requests that
 * describe the same context, and nothing about the filesystem is carried from one request to the next.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckEngine } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import { makeCheckProject } from './test-helpers/check-project.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => ({ tmp, proj, home } = makeCheckProject('tg-check-req-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const engine = () => new CheckEngine(createCheckToolResolver(), { cwd: proj });
/** A request as `--batch` sees it: straight from JSON.parse. */
const line = (request: Record<string, unknown>) => JSON.parse(JSON.stringify({ cwd: proj, home, ...request })) as unknown;
const decide = async (e: CheckEngine, request: Record<string, unknown>) => (await e.decide(line(request), { fromJson: true })).output;

describe('CheckEngine in a batch', () => {
  it('a symlink retargeted between two requests is judged by its new target', async () => {
    const e = engine();
    const link = path.join(proj, 'link');
    const rules = [{ source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' }];
    fs.symlinkSync(path.join(proj, '.env'), link);
    try {
      expect(await decide(e, { tool: 'Read', input: { file_path: link }, rules })).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
      fs.rmSync(link);
      fs.symlinkSync(path.join(proj, 'src', 'a.ts'), link);
      expect(await decide(e, { tool: 'Read', input: { file_path: link }, rules })).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
      fs.rmSync(link);
      fs.symlinkSync(path.join(proj, '.env'), link);
      expect(await decide(e, { tool: 'Read', input: { file_path: link }, rules })).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
    } finally {
      fs.rmSync(link, { force: true });
    }
  });

  it('a file created between two requests is judged as it now is (a new symlink to a denied file)', async () => {
    const e = engine();
    const target = path.join(proj, 'src', 'later.ts');
    const rules = [{ source: 'userSettings', behavior: 'deny', rule: 'Edit(./.env)' }];
    try {
      expect(await decide(e, { tool: 'Write', input: { file_path: target, content: '' }, mode: 'acceptEdits', rules })).toMatchObject({ behavior: 'allow' });
      fs.symlinkSync(path.join(proj, '.env'), target);
      expect(await decide(e, { tool: 'Write', input: { file_path: target, content: '' }, mode: 'acceptEdits', rules })).toMatchObject({ behavior: 'deny', rule: 'Edit(./.env)' });
    } finally {
      fs.rmSync(target, { force: true });
    }
  });

  it('requests that differ in one field of one rule, or in a context field, get their own context', async () => {
    const e = engine();
    const file = path.join(proj, 'src', 'a.ts');
    const rule = (r: Record<string, unknown>) => [{ source: 'projectSettings', behavior: 'allow', rule: 'Bash(npm test)' }, r];
    const ask = { tool: 'Read', input: { file_path: file } };
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'ask', rule: 'Read(./src/**)' }) })).toMatchObject({ behavior: 'ask', layer: 'askRule' });
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'deny', rule: 'Read(./src/**)' }) })).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'deny', rule: 'Read(./src/b.ts)' }) })).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'deny', rule: 'Read(/src/**)', root: path.join(tmp, 'elsewhere') }) })).toMatchObject({ behavior: 'allow' });
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'deny', rule: 'Read(/src/**)', root: proj }) })).toMatchObject({ behavior: 'deny' });
    // The same rules, one more of them, and the same rules under another mode or working directory.
    expect(await decide(e, { ...ask, rules: rule({ source: 'projectSettings', behavior: 'ask', rule: 'Read(./src/**)' }) })).toMatchObject({ behavior: 'ask', layer: 'askRule' });
    expect(await decide(e, { ...ask, rules: [...rule({ source: 'projectSettings', behavior: 'ask', rule: 'Read(./src/**)' }), { source: 'policySettings', behavior: 'deny', rule: 'Read' }] })).toMatchObject({ behavior: 'deny' });
    expect(await decide(e, { ...ask, mode: 'dontAsk', rules: rule({ source: 'projectSettings', behavior: 'ask', rule: 'Read(./src/**)' }) })).toMatchObject({ behavior: 'deny', layer: 'mode' });
    expect(await decide(e, { ...ask, rules: [] })).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(await decide(e, { ...ask, cwd: path.join(proj, 'src'), rules: [] })).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(await decide(e, { ...ask, cwd: home, rules: [] })).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(await decide(e, { ...ask, cwd: home, additionalDirectories: [proj], rules: [] })).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(await decide(e, { ...ask, cwd: home, additionalDirectories: [path.join(proj, 'other')], rules: [] })).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
  });

  it('a request whose context fields are invalid is refused every time, whatever came before', async () => {
    const e = engine();
    const ok = { tool: 'Read', input: { file_path: path.join(proj, 'src', 'a.ts') }, rules: [{ source: 'projectSettings', behavior: 'allow', rule: 'Read' }] };
    expect(await decide(e, ok)).toMatchObject({ behavior: 'allow' });
    await expect(decide(e, { ...ok, rules: [{ source: 'projectSettings', behavior: 'allow', rule: 'Read(' }] })).rejects.toThrow(/rules\[0\]/);
    await expect(decide(e, { ...ok, rules: [{ source: 'nowhere', behavior: 'allow', rule: 'Read' }] })).rejects.toThrow(/source/);
    await expect(decide(e, { ...ok, rules: [['projectSettings', 'allow', 'Read']] })).rejects.toThrow(/must be an object/);
    await expect(decide(e, { ...ok, mode: 'sometimes' })).rejects.toThrow(/mode/);
    await expect(decide(e, { ...ok, cwd: 'relative' })).rejects.toThrow(/absolute/);
    await expect(decide(e, { ...ok, additionalDirectories: [1] })).rejects.toThrow(/additionalDirectories/);
    expect(await decide(e, ok)).toMatchObject({ behavior: 'allow' });
  });
});
