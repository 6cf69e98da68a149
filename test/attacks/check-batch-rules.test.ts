/**
 * `toolgate check --batch` keeps what it compiled from a rule set (docs/security.md, "check --batch: compiled rules
 * bound to the disk"): a deny pattern is also compiled at the real location of its folder. The attacker writes the
 * batch's later lines or moves a link between two lines (a policy suite run against a checkout it controls, a
 * replayed transcript): a rule compiled while a link pointed one way must not judge a line after it points another.
 * Through the real engine, real links and real files; each case fails when compiled rules are kept without asking
 * the filesystem again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchAnswers } from '../../src/cli/commands/check-batch.js';
import { CheckEngine } from '../../src/cli/commands/check-request.js';
import { createCheckToolResolver } from '../../src/cli/commands/check-tools.js';

let tmp: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-batch-rules-attack-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A fresh folder with the given files (each path relative to it). */
function folder(name: string, files: readonly string[]): string {
  const dir = path.join(tmp, name);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), 'secret');
  }
  return dir;
}

function retarget(link: string, target: string): void {
  fs.rmSync(link);
  fs.symlinkSync(target, link);
}

function batch(cwd: string) {
  const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd }));
  return async (request: Record<string, unknown>): Promise<string> => {
    const answer = JSON.parse((await answers.answer(JSON.stringify({ cwd, home: path.join(tmp, 'home'), ...request }))).text) as { behavior?: string; error?: string };
    return answer.behavior ?? `error: ${answer.error}`;
  };
}

describe('compiled rules never outlive the links they were compiled through', () => {
  it('a deny rule naming a link: the link retargeted between two lines, the new target is denied', async () => {
    const proj = folder('p1', ['real1/key', 'real2/key']);
    fs.symlinkSync(path.join(proj, 'real1'), path.join(proj, 'vault'));
    const rules = [{ source: 'userSettings', behavior: 'deny', rule: `Read(/${path.join(proj, 'vault')}/**)` }];
    const ask = batch(proj);
    expect(await ask({ id: 1, tool: 'Read', input: { file_path: path.join(proj, 'real1', 'key') }, rules })).toBe('deny');
    expect(await ask({ id: 2, tool: 'Read', input: { file_path: path.join(proj, 'real2', 'key') }, rules })).toBe('allow');
    retarget(path.join(proj, 'vault'), path.join(proj, 'real2'));
    expect(await ask({ id: 3, tool: 'Read', input: { file_path: path.join(proj, 'real2', 'key') }, rules })).toBe('deny');
    expect(await ask({ id: 4, tool: 'Bash', input: { command: `cat ${path.join(proj, 'real2', 'key')}` }, rules })).toBe('deny');
    expect(await ask({ id: 5, tool: 'Read', input: { file_path: path.join(proj, 'real1', 'key') }, rules })).toBe('allow');
  });

  it('the working directory a link: retargeted between two lines, the rule follows it', async () => {
    folder('a', ['sub/secret.txt']);
    folder('b', ['sub/secret.txt']);
    const work = path.join(tmp, 'work');
    fs.symlinkSync(path.join(tmp, 'a'), work);
    const rules = [{ source: 'projectSettings', behavior: 'deny', rule: 'Read(./sub/secret.txt)' }];
    const ask = batch(work);
    expect(await ask({ id: 1, tool: 'Read', input: { file_path: path.join(tmp, 'a', 'sub', 'secret.txt') }, rules })).toBe('deny');
    retarget(work, path.join(tmp, 'b'));
    expect(await ask({ id: 2, tool: 'Read', input: { file_path: path.join(tmp, 'b', 'sub', 'secret.txt') }, rules })).toBe('deny');
  });

  it('a line repeated (its answer remembered) after the link moved: decided again, denied', async () => {
    const proj = folder('p3', ['real1/key', 'real2/key']);
    fs.symlinkSync(path.join(proj, 'real1'), path.join(proj, 'vault'));
    const rules = [{ source: 'userSettings', behavior: 'deny', rule: `Read(/${path.join(proj, 'vault')}/**)` }];
    const ask = batch(proj);
    const line = { id: 1, tool: 'Read', input: { file_path: path.join(proj, 'real2', 'key') }, rules };
    // Another line compiles the rules first; then the line itself, twice: remembered from its second time on.
    expect(await ask({ id: 0, tool: 'Read', input: { file_path: path.join(proj, 'real1', 'key') }, rules })).toBe('deny');
    expect(await ask(line)).toBe('allow');
    expect(await ask(line)).toBe('allow');
    expect(await ask(line)).toBe('allow');
    retarget(path.join(proj, 'vault'), path.join(proj, 'real2'));
    expect(await ask(line)).toBe('deny');
  });
});

/**
 * A suite's cases differ by their leading id only (`{"id":1,…}`, `{"id":2,…}`): one remembered answer serves them all
 * (check-batch.ts sameButId), and lines answered from memory one after another share their re-checks (one state of
 * the disk until the next await). Neither may let an answer outlive a link moved between two lines.
 */
describe('answers shared by lines equal but for their id stay bound to the disk', () => {
  /** A line whose id comes first, as a suite writes it. */
  const withId = (id: number, request: Record<string, unknown>): string => `{"id":${id},${JSON.stringify(request).slice(1)}`;

  it('a link retargeted between two cases with different ids: the later case is denied', async () => {
    const proj = folder('p4', ['real1/key', 'real2/key']);
    const link = path.join(proj, 'link');
    fs.symlinkSync(path.join(proj, 'real1', 'key'), link);
    const request = { tool: 'Read', input: { file_path: link }, cwd: proj, home: path.join(tmp, 'home'), rules: [{ source: 'userSettings', behavior: 'deny', rule: `Read(/${path.join(proj, 'real2')}/**)` }] };
    const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj }));
    const ask = async (id: number) => JSON.parse((await answers.answer(withId(id, request))).text) as { id: number; behavior: string };
    // Seen, recorded, then answered from memory under ids of their own.
    for (let id = 1; id <= 4; id++) expect(await ask(id)).toMatchObject({ id, behavior: 'allow' });
    retarget(link, path.join(proj, 'real2', 'key'));
    expect(await ask(5)).toMatchObject({ id: 5, behavior: 'deny' });
    expect(await ask(6)).toMatchObject({ id: 6, behavior: 'deny' });
    retarget(link, path.join(proj, 'real1', 'key'));
    expect(await ask(7)).toMatchObject({ id: 7, behavior: 'allow' });
  });

  it('through the command: a link moved between two chunks of stdin is seen by the later chunk', async () => {
    const proj = folder('p5', ['real1/key', 'real2/key']);
    const link = path.join(proj, 'link');
    fs.symlinkSync(path.join(proj, 'real1', 'key'), link);
    const request = { tool: 'Bash', input: { command: `cat ${link}` }, cwd: proj, home: path.join(tmp, 'home'), rules: [{ source: 'userSettings', behavior: 'deny', rule: `Read(/${path.join(proj, 'real2')}/**)` }] };
    const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj }));
    // As runBatch answers a chunk: one line after another, awaiting only an answer that is a promise.
    const chunk = async (ids: readonly number[]) => {
      const out: string[] = [];
      for (const id of ids) {
        const pending = answers.answer(withId(id, request));
        const a = JSON.parse((pending instanceof Promise ? await pending : pending).text) as { behavior: string };
        out.push(a.behavior);
      }
      return out;
    };
    expect(await chunk([1, 2, 3, 4, 5])).toEqual(['allow', 'allow', 'allow', 'allow', 'allow']);
    retarget(link, path.join(proj, 'real2', 'key'));
    expect(await chunk([6, 7, 8])).toEqual(['deny', 'deny', 'deny']);
  });

  it('a line that is not JSON, spelt as a remembered key (a NUL, then the rest of a case after its id): an error', async () => {
    const proj = folder('p6', ['notes.txt']);
    const request = { tool: 'Read', input: { file_path: path.join(proj, 'notes.txt') }, cwd: proj, home: path.join(tmp, 'home'), rules: [] };
    const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj }));
    const line = withId(1, request);
    for (let i = 0; i < 3; i++) expect((await answers.answer(line)).kind).toBe('allow');
    const forged = `\0${line.slice('{"id":1,'.length)}`;
    const answer = await answers.answer(forged);
    expect(answer.kind).toBe('error');
    expect(JSON.parse(answer.text)).toMatchObject({ error: expect.stringMatching(/invalid JSON/) });
  });
});

describe("one chunk's lines share the filesystem's answers, and only they", () => {
  /**
   * The attacker moves a link between two chunks of a batch (a suite run against a checkout it controls): facts the
   * first chunk's lines asked must not answer the second's.
   */
  const setUp = (name: string) => {
    const proj = folder(name, ['real1/key', 'real2/key']);
    const link = path.join(proj, 'link');
    fs.symlinkSync(path.join(proj, 'real1', 'key'), link);
    const answers = new BatchAnswers(new CheckEngine(createCheckToolResolver(), { cwd: proj }));
    /** A line with a rule set of its own (`n` makes it differ), so it is decided afresh unless repeated. */
    const line = (id: number, n: number, tool: 'Read' | 'Bash' = 'Read') =>
      JSON.stringify({
        id,
        tool,
        input: tool === 'Read' ? { file_path: link } : { command: `cat ${link}` },
        cwd: proj,
        home: path.join(tmp, 'home'),
        rules: [
          { source: 'userSettings', behavior: 'deny', rule: `Read(/${path.join(proj, 'real2')}/**)` },
          { source: 'projectSettings', behavior: 'allow', rule: `Bash(npm run case${n}:*)` },
        ],
      });
    const chunk = async (lines: readonly string[]) =>
      (await answers.answerChunk(lines)).text
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { behavior: string }).behavior);
    return { link, proj, line, chunk };
  };

  it('lines decided afresh: a link moved between two chunks is seen by every line of the later one', async () => {
    const { link, proj, line, chunk } = setUp('w1');
    expect(await chunk([line(1, 1), line(2, 2, 'Bash'), line(3, 3)])).toEqual(['allow', 'allow', 'allow']);
    retarget(link, path.join(proj, 'real2', 'key'));
    expect(await chunk([line(4, 4), line(5, 5, 'Bash'), line(6, 6)])).toEqual(['deny', 'deny', 'deny']);
  });

  it('a line remembered from facts the window gave: its answer is re-checked against the link, and denied', async () => {
    const { link, proj, line, chunk } = setUp('w2');
    // The same line three times in one chunk: decided, then recorded (its facts from the window, asked by the first),
    // then answered from memory. Remembering it must have noted every fact, the link's target among them.
    expect(await chunk([line(1, 1), line(1, 1), line(1, 1)])).toEqual(['allow', 'allow', 'allow']);
    retarget(link, path.join(proj, 'real2', 'key'));
    expect(await chunk([line(1, 1)])).toEqual(['deny']);
  });
});
