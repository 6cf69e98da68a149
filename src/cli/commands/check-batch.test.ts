/**
 * Answers reused across the lines of one batch: an identical line gets the earlier answer only while every filesystem
 * fact behind it still holds; a file created, removed or retargeted in between, or a decision that depends on the
 * clock or on a tool not audited for reuse, is decided again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BatchAnswers } from './check-batch.js';
import { CheckEngine, type CheckDefaults } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import { makeCheckProject } from './test-helpers/check-project.js';

let tmp: string;
let proj: string;
let home: string;

beforeAll(() => ({ tmp, proj, home } = makeCheckProject('tg-check-batch-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** BatchAnswers over an engine whose decisions are counted. */
function batch(defaults: Partial<CheckDefaults> = {}) {
  const engine = new CheckEngine(createCheckToolResolver(), { cwd: proj, ...defaults });
  const decide = vi.spyOn(engine, 'decide');
  const answers = new BatchAnswers(engine);
  const ask = async (request: Record<string, unknown>) => JSON.parse((await answers.answer(JSON.stringify({ cwd: proj, home, ...request }))).text) as Record<string, unknown>;
  /** Asks twice: a line is remembered from its second time on, so the next identical line is answered from memory. */
  const remembered = async (request: Record<string, unknown>) => {
    const first = await ask(request);
    expect(await ask(request)).toEqual(first);
    return first;
  };
  return { ask, remembered, decisions: () => decide.mock.calls.length };
}

const denyEnv = [{ source: 'userSettings', behavior: 'deny', rule: 'Read(./.env)' }];

describe('BatchAnswers', () => {
  it('an identical line is answered again without deciding again while nothing changed', async () => {
    const b = batch();
    const read = { id: 7, tool: 'Read', input: { file_path: path.join(proj, 'src', 'a.ts') }, rules: denyEnv };
    const first = await b.ask(read);
    expect(first).toMatchObject({ id: 7, behavior: 'allow', layer: 'readOnly' });
    expect(b.decisions()).toBe(1);
    // Decided again the second time (a line seen once is not recorded), then answered from memory.
    expect(await b.ask(read)).toEqual(first);
    expect(b.decisions()).toBe(2);
    expect(await b.ask(read)).toEqual(first);
    expect(await b.ask(read)).toEqual(first);
    expect(b.decisions()).toBe(2);
    // Another line (here: another id) is another request.
    expect(await b.ask({ ...read, id: 8 })).toEqual({ ...first, id: 8 });
    expect(b.decisions()).toBe(3);
  });

  it('lines equal but for the id they start with share one remembered answer, each with its own id', async () => {
    const engine = new CheckEngine(createCheckToolResolver(), { cwd: proj });
    const decide = vi.spyOn(engine, 'decide');
    const answers = new BatchAnswers(engine);
    const rest = JSON.stringify({ tool: 'Read', input: { file_path: path.join(proj, 'src', 'a.ts') }, cwd: proj, home, rules: denyEnv }).slice(1);
    const ask = async (id: string) => (await answers.answer(`{"id":${id},${rest}`)).text;
    const plain = JSON.parse(await ask('1')) as Record<string, unknown>;
    expect(plain).toMatchObject({ id: 1, behavior: 'allow' });
    for (const id of ['2', '-35', '0', '"case 7"', '123456789012345']) expect(await ask(id)).toBe(JSON.stringify({ ...plain, id: JSON.parse(id) }));
    // The first line, then the second (recorded): every later one from memory.
    expect(decide.mock.calls.length).toBe(2);
    // Ids JSON would write otherwise (1.0, an escape, 16 digits, -0) are lines of their own, decided and written as JSON.
    for (const id of ['1.0', '"a\\u0041"', '1234567890123456', '-0']) expect(await ask(id)).toBe(JSON.stringify({ ...plain, id: JSON.parse(id) }));
    expect(decide.mock.calls.length).toBe(6);
    // A later "id" is the one JSON keeps: never answered with the leading one.
    for (const id of ['3', '4', '5']) expect(JSON.parse((await answers.answer(`{"id":${id},${rest.slice(0, -1)},"id":"last"}`)).text)).toMatchObject({ id: 'last' });
    for (const id of ['3', '4', '5']) expect(JSON.parse((await answers.answer(`{"id":${id},${rest.slice(0, -1)},"\\u0069d":"esc"}`)).text)).toMatchObject({ id: 'esc' });
  });

  it('a symlink retargeted between two identical lines is judged by its new target, each time', async () => {
    const b = batch();
    const link = path.join(proj, 'link');
    const read = { tool: 'Read', input: { file_path: link }, rules: denyEnv };
    const cat = { tool: 'Bash', input: { command: `cat ${link}` }, rules: denyEnv };
    fs.symlinkSync(path.join(proj, '.env'), link);
    try {
      expect(await b.remembered(read)).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
      expect(await b.remembered(cat)).toMatchObject({ behavior: 'deny' });
      fs.rmSync(link);
      fs.symlinkSync(path.join(proj, 'src', 'a.ts'), link);
      expect(await b.ask(read)).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
      expect(await b.ask(cat)).toMatchObject({ behavior: 'allow' });
      fs.rmSync(link);
      fs.symlinkSync(path.join(proj, '.env'), link);
      expect(await b.ask(read)).toMatchObject({ behavior: 'deny', rule: 'Read(./.env)' });
      expect(await b.ask(cat)).toMatchObject({ behavior: 'deny' });
    } finally {
      fs.rmSync(link, { force: true });
    }
  });

  it('a file created, then removed, between identical lines changes the answer both times', async () => {
    const b = batch();
    const target = path.join(proj, 'src', 'later.ts');
    const write = { tool: 'Write', input: { file_path: target, content: '' }, mode: 'acceptEdits', rules: [{ source: 'userSettings', behavior: 'deny', rule: 'Edit(./.env)' }] };
    try {
      expect(await b.remembered(write)).toMatchObject({ behavior: 'allow', layer: 'mode' });
      fs.symlinkSync(path.join(proj, '.env'), target);
      expect(await b.ask(write)).toMatchObject({ behavior: 'deny', rule: 'Edit(./.env)' });
      fs.rmSync(target);
      expect(await b.ask(write)).toMatchObject({ behavior: 'allow', layer: 'mode' });
      expect(b.decisions()).toBe(4);
    } finally {
      fs.rmSync(target, { force: true });
    }
  });

  it('a repository planted between two identical git commands is seen by the second', async () => {
    const b = batch();
    const sub = path.join(proj, 'sub');
    fs.mkdirSync(sub);
    const status = { tool: 'Bash', input: { command: 'cd sub && git status' }, rules: [{ source: 'userSettings', behavior: 'allow', rule: 'Bash(git status)' }] };
    try {
      expect(await b.remembered(status)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
      for (const d of ['objects', 'refs']) fs.mkdirSync(path.join(sub, '.git', d), { recursive: true });
      fs.writeFileSync(path.join(sub, '.git', 'HEAD'), 'ref: refs/heads/main\n');
      expect(await b.ask(status)).toMatchObject({ behavior: 'ask', layer: 'safetyCheck', reason: expect.stringContaining("not the project's own") });
      fs.rmSync(path.join(sub, '.git'), { recursive: true });
      expect(await b.ask(status)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
      expect(b.decisions()).toBe(4);
    } finally {
      fs.rmSync(sub, { recursive: true, force: true });
    }
  });

  it('decides again what depends on the clock, an unaudited tool, or failed', async () => {
    const settings = path.join(tmp, 'expiring.json');
    fs.writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash(npm test)'], expires: { 'Bash(npm test)': '2999-01-01T00:00:00Z' } } }));
    const expiring = batch({ flagSettingsFiles: [settings] });
    const npmTest = { tool: 'Bash', input: { command: 'npm test' } };
    expect(await expiring.remembered(npmTest)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    expect(await expiring.ask(npmTest)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    expect(expiring.decisions()).toBe(3);

    const b = batch();
    const todo = { tool: 'TodoWrite', input: { todos: [] } };
    await b.remembered(todo);
    await b.ask(todo);
    expect(b.decisions()).toBe(3);

    const bad = { tool: 'Read', input: { file_path: 3 } };
    expect(await b.remembered(bad)).toHaveProperty('error');
    expect(await b.ask(bad)).toHaveProperty('error');
    expect(b.decisions()).toBe(6);
  });

  it('when the engine forgets its contexts (settings read again), the answers remembered under them go too', async () => {
    const settings = path.join(tmp, 'settings.json');
    const write = (behavior: string) => fs.writeFileSync(settings, JSON.stringify({ permissions: { [behavior]: ['Bash(npm test)'] } }));
    write('allow');
    const b = batch({ flagSettingsFiles: [settings] });
    const npmTest = { tool: 'Bash', input: { command: 'npm test' } };
    expect(await b.remembered(npmTest)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    write('deny');
    // The context (and its settings) is the one already built, as it was before answers were remembered.
    expect(await b.ask(npmTest)).toMatchObject({ behavior: 'allow', layer: 'allowRule' });
    for (let i = 0; i < 1001; i++) await b.ask({ tool: 'mcp__s__t', input: {}, home: path.join(home, String(i)), rules: [] });
    expect(await b.ask(npmTest)).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
  });

  it('a WebFetch whose check consulted the resolver is reused while the resolver gives the same answer', async () => {
    const b = batch();
    // An address, so no lookup leaves the machine; the check still asks the resolver (which answers the address).
    const fetch = { tool: 'WebFetch', input: { url: 'http://127.0.0.1/', prompt: 'p' } };
    const first = await b.remembered(fetch);
    expect(first).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(await b.ask(fetch)).toEqual(first);
    expect(b.decisions()).toBe(2);
  });
});
