/**
 * Diagnostics after an edit, against the real typescript-language-server: once the LSP tool has started the server
 * for a file's language, a Write or Edit of such a file is followed (the next turn's context: the outcome's
 * newMessages) by the errors the server reports for the new text; none when the text is fine, none when no server
 * runs for the file (none is started for it), and never more than the bound.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import type { AnyTool, ToolUseBlock } from '../../tool/tool.js';
import { allowAll, callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { EditTool } from '../edit/index.js';
import { ReadTool } from '../read/index.js';
import { formatDiagnostics } from '../shared/edit-diagnostics.js';
import { WriteTool } from '../write/index.js';
import { LspTool } from './index.js';
import { lspManagerFor } from './manager.js';
import { lspServersBin } from './test-helpers/servers.js';

const servers = lspServersBin();
// Written reason for skipping: the servers come from npm; when they cannot be installed the reason is printed.
if ('skip' in servers) console.warn(`LSP diagnostics tests skipped: ${servers.skip}`);
const bin = 'bin' in servers ? servers.bin : '';

let dir: string;
let project: TestProject;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lsp-diag-')));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'preserve' }, include: ['*.ts'] }));
  writeFileSync(path.join(dir, 'a.ts'), 'export const one: number = 1;\n');
  project = makeProject({ dir, settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } } });
});
afterAll(async () => {
  await project.cleanup();
});

let ids = 0;
/** One call through the pipeline: its result text and the messages that follow it. */
async function run(tool: AnyTool, input: Record<string, unknown>) {
  const block = { type: 'tool_use', id: `toolu_diag_${++ids}`, name: tool.name, input } as ToolUseBlock;
  const context = { ...project.context, options: { ...project.context.options, tools: [tool] } };
  const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, allowAll, context);
  const reminders = outcome.newMessages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')));
  return { isError: outcome.result.is_error === true, reminders };
}

describe.skipIf('skip' in servers)('diagnostics after an edit (typescript-language-server)', () => {
  it('no server running for the file: nothing (and none is started for it)', { timeout: 60_000 }, async () => {
    const r = await run(WriteTool, { file_path: path.join(dir, 'early.ts'), content: "export const bad: number = 'x';\n" });
    expect(r.isError).toBe(false);
    expect(r.reminders).toEqual([]);
  });

  it('with the server running, a Write that breaks the types is followed by the error; a fix by nothing', { timeout: 120_000 }, async () => {
    await callTool(LspTool, { operation: 'hover', filePath: 'a.ts', line: 1, character: 14 }, project.context);
    expect(lspManagerFor(project.context).pidOf('typescript')).toBeDefined();
    const file = path.join(dir, 'b.ts');
    const broken = await run(WriteTool, { file_path: file, content: "export const two: number = 'two';\n" });
    expect(broken.reminders).toHaveLength(1);
    expect(broken.reminders[0]).toContain('<new-diagnostics>');
    expect(broken.reminders[0]).toContain('b.ts:');
    expect(broken.reminders[0]).toMatch(/\[Line 1:14\] Type 'string' is not assignable to type 'number'\. \[2322\] \(typescript\)/);

    await run(ReadTool, { file_path: file });
    const fixed = await run(EditTool, { file_path: file, old_string: "'two'", new_string: '2' });
    expect(fixed.isError).toBe(false);
    expect(fixed.reminders).toEqual([]);
  });
});

describe('the reminder is bounded', () => {
  it('shows errors only, at most 20, each message cut short', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ range: { start: { line: i, character: 0 } }, severity: 1, message: 'x'.repeat(1000), code: 1 }));
    const text = formatDiagnostics('/p/a.ts', [...many, { severity: 2, message: 'a warning' }], '/p')!;
    expect(text.match(/✘/g)).toHaveLength(20);
    expect(text).toContain('… and 10 more');
    expect(text).not.toContain('a warning');
    expect(text.length).toBeLessThan(20 * 400);
    expect(formatDiagnostics('/p/a.ts', [{ severity: 2, message: 'warning only' }], '/p')).toBeUndefined();
  });
});
