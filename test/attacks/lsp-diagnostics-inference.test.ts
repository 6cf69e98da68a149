/**
 * Diagnostics after an edit as a way to read a denied file (docs/security.md §2, the residue the hover guard left):
 * the model writes `const n: 'guess' = TOKEN` where TOKEN comes from a Read-denied file, and TypeScript's error quotes
 * the literal: "Type '"tok-live-…"' is not assignable to type '"guess"'". An edit whose file draws on a denied file
 * (its imports, resolved by the server, as the hover guard follows them) is followed by no diagnostics — errors or
 * not, so their presence answers no question either. The real typescript-language-server.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolUse } from '../../src/execution/pipeline.js';
import type { PermissionRule } from '../../src/tool/permission-types.js';
import type { AnyTool, ToolUseBlock } from '../../src/tool/tool.js';
import { allowAll, callTool, makeProject, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { LspTool } from '../../src/tools/lsp/index.js';
import { lspServersBin } from '../../src/tools/lsp/test-helpers/servers.js';
import { WriteTool } from '../../src/tools/write/index.js';

const servers = lspServersBin();
// Written reason for skipping: the cases need the real language server from npm (see lspServersBin).
if ('skip' in servers) console.warn(`LSP diagnostics attack tests skipped: ${servers.skip}`);
const bin = 'bin' in servers ? servers.bin : '';

const SECRET = 'tok-live-8c1e44a0b2';
const deny = (ruleContent: string): PermissionRule => ({ source: 'session', ruleBehavior: 'deny', ruleValue: { toolName: 'Read', ruleContent } });

let project: TestProject | undefined;
let dir = '';
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
  rmSync(dir, { recursive: true, force: true });
});

let ids = 0;
/** Starts the server through an LSP call on an innocent file, then returns a Write through the pipeline: its reminders. */
async function setUp(rules: readonly string[]): Promise<(file: string, content: string) => Promise<string>> {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lsp-diag-attack-')));
  mkdirSync(path.join(dir, 'vault'));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'preserve', moduleResolution: 'bundler' }, include: ['**/*.ts'] }));
  writeFileSync(path.join(dir, 'vault', 'secret.ts'), `export const TOKEN = '${SECRET}';\n`);
  writeFileSync(path.join(dir, 'plain.ts'), 'export const answer = 42;\n');
  project = makeProject({ dir, settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } }, rules: { alwaysDenyRules: rules.map(deny) } });
  const p = project;
  await callTool(LspTool, { operation: 'hover', filePath: 'plain.ts', line: 1, character: 14 }, p.context);
  return async (file, content) => {
    const block = { type: 'tool_use', id: `toolu_diag_attack_${++ids}`, name: WriteTool.name, input: { file_path: path.join(dir, file), content } } as ToolUseBlock;
    const context = { ...p.context, options: { ...p.context.options, tools: [WriteTool as AnyTool] } };
    const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, allowAll, context);
    expect(outcome.result.is_error).not.toBe(true);
    return JSON.stringify(outcome.newMessages);
  };
}

// A literal target type: TypeScript then names the source's literal type (against `number` it says 'string').
const LEAK = "import { TOKEN } from './vault/secret';\nexport const n: 'guess' = TOKEN;\n";
const TWO_HOPS = "import { copy } from './relay';\nexport const m: 'guess' = copy;\n";
const RELAY = "import { TOKEN } from './vault/secret';\nexport const copy = TOKEN;\n";

describe.skipIf('skip' in servers)('attack: diagnostics after an edit that quote a denied file', () => {
  it('control: with no rule the error quotes the token (the attack is real), and the guard is not in the way', { timeout: 180_000 }, async () => {
    const write = await setUp([]);
    expect(await write('leak.ts', LEAK)).toContain(SECRET);
  });

  it('withheld one and two hops away; an edit that draws on nothing denied still gets its errors', { timeout: 180_000 }, async () => {
    const write = await setUp(['./vault/**']);
    const one = await write('leak.ts', LEAK);
    expect(one).not.toContain(SECRET);
    expect(one).not.toContain('new-diagnostics');
    await write('relay.ts', RELAY);
    const two = await write('two.ts', TWO_HOPS);
    expect(two).not.toContain(SECRET);
    expect(two).not.toContain('new-diagnostics');
    const fine = await write('own.ts', "export const k: number = 'not a number';\n");
    expect(fine).toContain('new-diagnostics');
    expect(fine).toContain("Type 'string' is not assignable to type 'number'");
  });
});
