/**
 * The CLI scripts' memo of built-in namespaces (scripts/bundle-cli.mjs `__tgEsm`, docs/security.md "The CLI script's
 * start-up memos"): one namespace per built-in and node-mode flag, never another built-in's. Runs the script's own
 * banner, as built, with esbuild's helper from the same script.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const dir = path.join(repoRoot, 'dist/cli-bundle');
const scripts = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cjs')) : [];

/** The script's memo and esbuild's namespace helper, as built, run in a context of their own with a stand-in require. */
function memoOf(file: string) {
  const code = readFileSync(path.join(dir, file), 'utf8');
  const toEsm = /var ([\w$]+)\s*=\s*\(([\w$]+),\s*([\w$]+),\s*([\w$]+)\)\s*=>\s*\(\4\s*=\s*\2\s*!=\s*null\s*\?/.exec(code)?.[1];
  const from = code.indexOf('var __tgEsmMemo');
  expect(toEsm).toBeDefined();
  expect(from).toBeGreaterThan(-1);
  const at = code.indexOf(`var ${toEsm!}=`);
  const prelude = code.slice(from, at) + code.slice(at).split(';')[0]!;
  // Each "built-in" a distinct object that says which it is.
  const context = vm.createContext({ require: (s: string) => ({ [`only ${s}`]: true }), Map, Object });
  vm.runInContext(`${prelude};globalThis.memo=__tgEsm;globalThis.helper=${toEsm!};`, context);
  return { memo: context.memo as (h: unknown, s: string, f: number) => Record<string, unknown>, helper: context.helper as unknown };
}

describe("the CLI scripts' built-in namespaces", () => {
  it.skipIf(scripts.length === 0)('give each built-in and flag its own namespace, and the same one again', () => {
    // Without dist/ (a checkout that has not built) there is no script to test: test/cli-bundle.test.ts builds it.
    for (const file of scripts) {
      const { memo, helper } = memoOf(file);
      const fs1 = memo(helper, 'node:fs', 1);
      expect(fs1['only node:fs']).toBe(true);
      expect(memo(helper, 'node:fs', 1)).toBe(fs1);
      const pathNs = memo(helper, 'node:path', 1);
      expect(pathNs['only node:path']).toBe(true);
      expect(pathNs['only node:fs']).toBeUndefined();
      const fs0 = memo(helper, 'node:fs', 0);
      expect(fs0).not.toBe(fs1);
      expect(fs0['only node:fs']).toBe(true);
    }
  });
});
