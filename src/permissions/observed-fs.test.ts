/**
 * The engine's filesystem facts, recorded and replayed: a recording holds only when asking its questions again gets
 * the same answers, and a recording that cannot stand for what was learnt is not handed out at all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  existsSync,
  lstatIfExists,
  observeFacts,
  readdirEntriesSync,
  readdirSync,
  readTextSync,
  realpathNative,
  statIfExists,
  statSync,
  lstatSync,
  observedAsync,
  stillHolds,
  withFsMemo,
  type AsyncQuestion,
} from './observed-fs.js';
import { resolveRealPath } from './real-path.js';

let tmp: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-observed-fs-')));
  fs.writeFileSync(path.join(tmp, 'a'), 'A');
  fs.writeFileSync(path.join(tmp, 'b'), 'B');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const record = async (decide: () => unknown) => (await observeFacts(async () => decide())).observations;

describe('observed filesystem facts', () => {
  it('answers as node:fs does, errors included', () => {
    const a = path.join(tmp, 'a');
    expect(existsSync(a)).toBe(true);
    expect(realpathNative(a)).toBe(fs.realpathSync.native(a));
    expect(lstatIfExists(path.join(tmp, 'missing'))).toBeUndefined();
    expect(statIfExists(a)?.isFile()).toBe(true);
    expect(readTextSync(a)).toBe('A');
    expect(readdirSync(tmp).sort()).toEqual(fs.readdirSync(tmp).sort());
    expect(readdirEntriesSync(tmp).map((d) => d.name).sort()).toEqual(fs.readdirSync(tmp).sort());
    expect(() => realpathNative(path.join(tmp, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('a stat that threw for a missing path holds while the path stays missing, and not once it appears', async () => {
    const gone = path.join(tmp, 'gone');
    const facts = await record(() => {
      for (const f of [statSync, lstatSync]) {
        try {
          f(gone);
        } catch {
          // ENOENT: the fact recorded is the error
        }
      }
    });
    // Re-asked without an error (factNow): the same text, so a reused verdict is not lost to a missing file.
    expect(stillHolds(facts!)).toBe(true);
    fs.writeFileSync(gone, '');
    try {
      expect(stillHolds(facts!)).toBe(false);
    } finally {
      fs.rmSync(gone);
    }
    expect(stillHolds(facts!)).toBe(true);
  });

  it('a link retargeted, a file created or removed, contents changed: the recording no longer holds', async () => {
    const link = path.join(tmp, 'link');
    const later = path.join(tmp, 'later');
    fs.symlinkSync(path.join(tmp, 'a'), link);
    try {
      const facts = await record(() => [resolveRealPath(link), existsSync(later), readTextSync(path.join(tmp, 'b'))]);
      expect(facts).toBeDefined();
      expect(stillHolds(facts!)).toBe(true);

      fs.rmSync(link);
      fs.symlinkSync(path.join(tmp, 'b'), link);
      expect(stillHolds(facts!)).toBe(false);
      fs.rmSync(link);
      fs.symlinkSync(path.join(tmp, 'a'), link);
      expect(stillHolds(facts!)).toBe(true);

      fs.writeFileSync(later, '');
      expect(stillHolds(facts!)).toBe(false);
      fs.rmSync(later);
      expect(stillHolds(facts!)).toBe(true);

      fs.writeFileSync(path.join(tmp, 'b'), 'b!');
      expect(stillHolds(facts!)).toBe(false);
      fs.writeFileSync(path.join(tmp, 'b'), 'B');
    } finally {
      fs.rmSync(link, { force: true });
      fs.rmSync(later, { force: true });
    }
  });

  it('a failed question is a fact too: the path appearing changes it', async () => {
    const dir = path.join(tmp, 'appears');
    const facts = await record(() => {
      try {
        return realpathNative(dir);
      } catch {
        return undefined;
      }
    });
    expect(stillHolds(facts!)).toBe(true);
    fs.mkdirSync(dir);
    try {
      expect(stillHolds(facts!)).toBe(false);
    } finally {
      fs.rmdirSync(dir);
    }
  });

  it('an asynchronous question (a DNS answer) is asked again too, its failure included', async () => {
    let answer: string | Error = '10.0.0.1';
    const lookup: AsyncQuestion = {
      ask: async () => {
        if (answer instanceof Error) throw answer;
        return answer;
      },
      fact: (a) => a as string,
    };
    const facts = await record(async () => [existsSync(tmp), await observedAsync(lookup, 'example.com')]);
    expect(await stillHolds(facts!)).toBe(true);
    answer = '93.184.216.34';
    expect(await stillHolds(facts!)).toBe(false);
    answer = Object.assign(new Error('no network'), { code: 'EAI_AGAIN' });
    expect(await stillHolds(facts!)).toBe(false);
    const failed = await record(async () => observedAsync(lookup, 'example.com').catch(() => undefined));
    expect(await stillHolds(failed!)).toBe(true);
    answer = '10.0.0.1';
    expect(await stillHolds(failed!)).toBe(false);
  });

  it('a fact that changed during the decision, or overlapping decisions: nothing to reuse', async () => {
    const file = path.join(tmp, 'flicker');
    expect(
      await record(() => {
        existsSync(file);
        fs.writeFileSync(file, '');
        existsSync(file);
      }),
    ).toBeUndefined();
    fs.rmSync(file);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = observeFacts(async () => {
      existsSync(tmp);
      await gate;
    });
    const second = observeFacts(async () => existsSync(tmp));
    release();
    expect((await first).observations).toBeUndefined();
    expect((await second).observations).toBeUndefined();
    // Once neither is open, recording works again.
    expect(await record(() => existsSync(tmp))).toBeDefined();
  });

  it('a decision that throws gives its error, and no recording', async () => {
    await expect(observeFacts(async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await record(() => existsSync(tmp))).toBeDefined();
  });
});

/** Source files under permissions/ (tests and their helpers aside), relative to it. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((p) => !p.split(path.sep).includes('test-helpers'));
}

it('under permissions/, only observed-fs.ts touches the filesystem (a decision reused by its facts must have them all)', () => {
  // bash/parser.ts reads the parser's wasm file once, at load; no decision depends on a fact in it.
  const allowed = new Set(['observed-fs.ts', path.join('bash', 'parser.ts')]);
  const importsFs = /(?:import\s(?!type\s)[^'"]*?from\s*|import\(\s*|require\(\s*)['"](?:node:)?fs(?:\/promises)?['"]/;
  expect(["import { statSync } from 'node:fs';", "import fs from 'fs';", "await import('node:fs/promises')"].every((x) => importsFs.test(x))).toBe(true);
  expect(importsFs.test("import type fs from 'node:fs';")).toBe(false);
  const offenders = sources(import.meta.dirname).filter((f) => !allowed.has(f) && importsFs.test(fs.readFileSync(path.join(import.meta.dirname, f), 'utf8')));
  expect(offenders).toEqual([]);
});

describe('withFsMemo: one synchronous check sees one state of the disk', () => {
  it('a question asked again inside the scope gets the first answer (errors too); after the scope, the disk again', () => {
    const link = path.join(tmp, 'memo-link');
    fs.symlinkSync(path.join(tmp, 'a'), link);
    try {
      const seen = withFsMemo(() => {
        const first = realpathNative(link);
        const missing = existsSync(path.join(tmp, 'memo-new'));
        fs.rmSync(link);
        fs.symlinkSync(path.join(tmp, 'b'), link);
        fs.writeFileSync(path.join(tmp, 'memo-new'), '');
        let gone: unknown;
        try {
          realpathNative(path.join(tmp, 'memo-absent'));
        } catch (error) {
          gone = error;
        }
        fs.writeFileSync(path.join(tmp, 'memo-absent'), '');
        let again: unknown;
        try {
          realpathNative(path.join(tmp, 'memo-absent'));
        } catch (error) {
          again = error;
        }
        return { first, second: realpathNative(link), missing, stillMissing: existsSync(path.join(tmp, 'memo-new')), sameError: gone !== undefined && again === gone };
      });
      expect(seen).toEqual({ first: path.join(tmp, 'a'), second: path.join(tmp, 'a'), missing: false, stillMissing: false, sameError: true });
      // Nothing is carried past the scope: the next check asks the disk.
      expect(realpathNative(link)).toBe(path.join(tmp, 'b'));
      expect(existsSync(path.join(tmp, 'memo-new'))).toBe(true);
      expect(withFsMemo(() => realpathNative(link))).toBe(path.join(tmp, 'b'));
    } finally {
      for (const f of ['memo-link', 'memo-new', 'memo-absent']) fs.rmSync(path.join(tmp, f), { force: true });
    }
  });
});
