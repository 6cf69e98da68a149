/**
 * Red team on LSP hover (docs/security.md §5, the residue it named): a Read-denied `secret.ts` holds a token; an
 * allowed file imports it and re-exports it under another name (`export const copy = TOKEN`), so a hover on `copy`
 * shows `const copy: "tok-live-…"` — the symbol's definition is in the allowed file, and the server read the denied
 * one itself. The hover is now withheld when any file the hovered file or the definition draws on, through imports
 * resolved by the server, is one the session may not read. The real typescript-language-server and pyright.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PermissionRule } from '../../src/tool/permission-types.js';
import { callTool, makeProject, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { LspTool, type LspOutput } from '../../src/tools/lsp/index.js';
import { lspServersBin } from '../../src/tools/lsp/test-helpers/servers.js';

const servers = lspServersBin();
// Written reason for skipping: the cases need the real language servers from npm (see lspServersBin).
if ('skip' in servers) console.warn(`LSP hover attack tests skipped: ${servers.skip}`);
const bin = 'bin' in servers ? servers.bin : '';

const SECRET = 'tok-live-5f0c2d9e71';
const deny = (ruleContent: string): PermissionRule => ({ source: 'session', ruleBehavior: 'deny', ruleValue: { toolName: 'Read', ruleContent } });
const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'preserve', moduleResolution: 'bundler', baseUrl: '.', paths: { '@vault/*': ['vault/*'] } }, include: ['**/*.ts'] });

let project: TestProject | undefined;
let dir = '';
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function setUp(files: Record<string, string>, rules: readonly string[]): (input: Record<string, unknown>) => Promise<string> {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lsp-hover-')));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  project = makeProject({ dir, settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } }, rules: { alwaysDenyRules: rules.map(deny) } });
  const p = project;
  return async (input) => (await callTool<LspOutput>(LspTool, input, p.context)).text;
}

const TS_FILES = {
  'tsconfig.json': TSCONFIG,
  'vault/secret.ts': `export const TOKEN = '${SECRET}';\n`,
  // One hop: the allowed file re-exports the denied constant under its own name (through a tsconfig path alias).
  'leak.ts': "import { TOKEN } from '@vault/secret';\nexport const copy = TOKEN;\n",
  // Two hops: a file that never names the denied one.
  'main.ts': "import { copy } from './leak';\nexport const again = copy;\n",
  'plain.ts': 'export const answer = 42;\n',
};

describe.skipIf('skip' in servers)('attack: a hover that infers a denied file\'s content through an allowed one', () => {
  it('control: with no rule the hovers show the token (the attack is real), and the guard is not in the way', { timeout: 180_000 }, async () => {
    const lsp = setUp(TS_FILES, []);
    expect(await lsp({ operation: 'hover', filePath: 'leak.ts', line: 2, character: 14 })).toContain(SECRET);
    expect(await lsp({ operation: 'hover', filePath: 'main.ts', line: 2, character: 14 })).toContain(SECRET);
  });

  it('TypeScript: withheld one and two hops away; a file that draws on nothing denied still answers', { timeout: 180_000 }, async () => {
    const lsp = setUp(TS_FILES, ['./vault/**']);
    const one = await lsp({ operation: 'hover', filePath: 'leak.ts', line: 2, character: 14 });
    expect(one).not.toContain(SECRET);
    expect(one).toMatch(/^Hover withheld/);
    const two = await lsp({ operation: 'hover', filePath: 'main.ts', line: 2, character: 14 });
    expect(two).not.toContain(SECRET);
    expect(two).toMatch(/^Hover withheld/);
    expect(await lsp({ operation: 'hover', filePath: 'plain.ts', line: 1, character: 14 })).toContain('const answer: 42');
  });

  it('Python (pyright): a module-level constant re-exported from a denied module is withheld', { timeout: 180_000 }, async () => {
    const lsp = setUp(
      {
        'vault/__init__.py': '',
        'vault/secret.py': `TOKEN = "${SECRET}"\n`,
        'leak.py': 'from vault.secret import TOKEN\ncopy: str = TOKEN\nfrom typing import Final\nagain: Final = TOKEN\n',
        'plain.py': 'from typing import Final\nanswer: Final = 42\n',
      },
      ['./vault/**'],
    );
    const hover = await lsp({ operation: 'hover', filePath: 'leak.py', line: 4, character: 2 });
    expect(hover).not.toContain(SECRET);
    expect(hover).toMatch(/^Hover withheld/);
    expect(await lsp({ operation: 'hover', filePath: 'plain.py', line: 2, character: 2 })).toContain('answer');
  });
});
