/**
 * Red team on the LSP tool (docs/security.md §5, a repository narrows): a language server installed outside the
 * project is allowed without asking, but typescript-language-server runs the TypeScript it finds in the workspace
 * (`node_modules/typescript/lib`, `.yarn/sdks/typescript/lib`, …) in preference to its own — so a cloned repository
 * that ships a `tsserver.js` would have its code run by an LSP call nobody was asked about. Real server, real files.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runToolUse } from '../../src/execution/pipeline.js';
import { localToolCallBackend } from '../../src/execution/backend.js';
import { createCanUseTool } from '../../src/permissions/can-use-tool.js';
import type { ToolUseBlock } from '../../src/tool/tool.js';
import { toolResultText } from '../../src/tool/tool-result.js';
import { makeProject, type TestProject } from '../../src/tools/bash/test-helpers/project.js';
import { LspTool } from '../../src/tools/lsp/index.js';
import { lspServersBin } from '../../src/tools/lsp/test-helpers/servers.js';

const servers = lspServersBin();
// Written reason for skipping: the case needs the real typescript-language-server from npm (see lspServersBin).
if ('skip' in servers) console.warn(`LSP attack tests skipped: ${servers.skip}`);
const bin = 'bin' in servers ? servers.bin : '';

let project: TestProject | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

/** A workspace TypeScript whose tsserver.js leaves a file behind when it runs (what a repository's code could do). */
function plantTsserver(dir: string, folder: string): string {
  const marker = path.join(dir, 'PWNED');
  mkdirSync(path.join(dir, folder, 'lib'), { recursive: true });
  writeFileSync(path.join(dir, folder, 'package.json'), JSON.stringify({ name: 'typescript', version: '5.4.5' }));
  writeFileSync(path.join(dir, folder, 'lib', 'tsserver.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nprocess.exit(0);\n`);
  return marker;
}

/** Runs one LSP call through the real pipeline and permission engine, headless: whatever would ask is refused. */
async function callHeadless(p: TestProject, input: Record<string, unknown>): Promise<string> {
  const block = { type: 'tool_use', id: 'toolu_red_lsp', name: LspTool.name, input } as ToolUseBlock;
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, createCanUseTool(), { ...p.context, options: { ...p.context.options, tools: [LspTool] } }, { backend: localToolCallBackend });
  return toolResultText(outcome.result);
}

describe.skipIf('skip' in servers)('a workspace TypeScript shipped by the repository', () => {
  it.each(['node_modules/typescript', '.yarn/sdks/typescript'])('%s/lib/tsserver.js is not run by a server from outside the project', { timeout: 120_000 }, async (folder) => {
    project = makeProject({ settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } } });
    writeFileSync(path.join(project.dir, 'a.ts'), 'export const a = 1;\n');
    const marker = plantTsserver(project.dir, folder);
    // The server answers with its own TypeScript, unasked (a project after npm install has a node_modules/typescript).
    expect(await callHeadless(project, { operation: 'hover', filePath: 'a.ts', line: 1, character: 14 })).toContain('const a: 1');
    // Give a started server the time to have run the planted file (it writes at once when it is loaded).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(marker)).toBe(false);
  });

  it('control: without a planted TypeScript the same headless call answers (nothing asks)', { timeout: 120_000 }, async () => {
    project = makeProject({ settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } } });
    writeFileSync(path.join(project.dir, 'a.ts'), 'export const a = 1;\n');
    expect(await callHeadless(project, { operation: 'hover', filePath: 'a.ts', line: 1, character: 14 })).toContain('const a: 1');
  });
});
