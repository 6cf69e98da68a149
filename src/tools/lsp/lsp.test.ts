import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRule } from '../../tool/permission-types.js';
import { callTool, makeProject, type TestProject } from '../bash/test-helpers/project.js';
import { LspTool, type LspOutput } from './index.js';
import { lspManagerFor } from './manager.js';
import { lspServersBin } from './test-helpers/servers.js';

const servers = lspServersBin();
// Written reason for skipping: these tests talk to real language servers from npm; when they are not installed and
// the registry cannot be reached to install them, the reason is printed and the cases are skipped.
if ('skip' in servers) console.warn(`LSP tests skipped: ${servers.skip}`);
const bin = 'bin' in servers ? servers.bin : '';

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'preserve', moduleResolution: 'bundler' }, include: ['*.ts'] }),
  'a.ts': 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n\nexport interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n',
  'b.ts': "import { greet } from './a';\n\nexport function main(): string {\n  return greet('x');\n}\n",
  'secret.ts': "import { greet } from './a';\n\nexport const hidden = greet('secret');\n",
  'mod.py': 'def greet(name):\n    return "hello " + name\n',
  'main.py': 'from mod import greet\n\nprint(greet("x"))\n',
};

let dir: string;
let project: TestProject;
const deny = (ruleContent: string): PermissionRule => ({ source: 'session', ruleBehavior: 'deny', ruleValue: { toolName: 'Read', ruleContent } });

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-lsp-')));
  for (const [name, text] of Object.entries(FILES)) writeFileSync(path.join(dir, name), text);
  // The built-in servers, found on the session's PATH.
  project = makeProject({ dir, settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } }, rules: { alwaysDenyRules: [deny('./secret.ts')] } });
});
afterAll(async () => {
  await project.cleanup();
});

const lsp = (input: Record<string, unknown>) => callTool<LspOutput>(LspTool, input, project.context);

describe.skipIf('skip' in servers)('LSP against typescript-language-server and pyright', () => {
  it('goes to a definition in another file (1-based positions in, file:line:column out)', { timeout: 120_000 }, async () => {
    const r = await lsp({ operation: 'goToDefinition', filePath: path.join(dir, 'b.ts'), line: 4, character: 10 });
    expect(r.text).toBe('a.ts:1:17');
    expect(r.data).toMatchObject({ resultCount: 1, fileCount: 1, server: 'typescript' });
  });

  it('finds references, hovers, lists a document and the workspace, reusing one server', { timeout: 120_000 }, async () => {
    const pid = lspManagerFor(project.context).pidOf('typescript');
    const refs = await lsp({ operation: 'findReferences', filePath: 'a.ts', line: 1, character: 17 });
    // secret.ts uses greet too, but a Read deny rule covers it: it is left out of the answer.
    expect(refs.text.split('\n').sort()).toEqual(['a.ts:1:17', 'b.ts:1:10', 'b.ts:4:10']);
    expect(refs.data.fileCount).toBe(2);
    const hover = await lsp({ operation: 'hover', filePath: 'a.ts', line: 1, character: 17 });
    expect(hover.text).toContain('function greet(name: string): string');
    const symbols = await lsp({ operation: 'documentSymbol', filePath: 'a.ts', line: 1, character: 1 });
    expect(symbols.text).toContain('greet (function) a.ts:1:17');
    expect(symbols.text).toMatch(/Square \(class\) a\.ts:9:14\n {2}area \(method\) a\.ts:10:3/);
    const workspace = await lsp({ operation: 'workspaceSymbol', filePath: 'a.ts', line: 1, character: 1, query: 'greet' });
    expect(workspace.text).toMatch(/^greet \(function\) a\.ts:1:\d+$/m);
    const impl = await lsp({ operation: 'goToImplementation', filePath: 'a.ts', line: 5, character: 18 });
    expect(impl.text).toBe('a.ts:9:14');
    expect(lspManagerFor(project.context).pidOf('typescript')).toBe(pid);
  });

  it('walks the call hierarchy both ways', { timeout: 120_000 }, async () => {
    const prepared = await lsp({ operation: 'prepareCallHierarchy', filePath: 'a.ts', line: 1, character: 17 });
    expect(prepared.text).toBe('greet (function) a.ts:1:17');
    const callers = await lsp({ operation: 'incomingCalls', filePath: 'a.ts', line: 1, character: 17 });
    expect(callers.text).toBe('main (function) b.ts:3:17');
    const callees = await lsp({ operation: 'outgoingCalls', filePath: 'b.ts', line: 3, character: 17 });
    expect(callees.text).toBe('greet (function) a.ts:1:17');
  });

  it('sees an edit made after the file was opened', { timeout: 120_000 }, async () => {
    writeFileSync(path.join(dir, 'b.ts'), "import { greet } from './a';\n\n\nexport function main(): string {\n  return greet('x');\n}\n");
    const r = await lsp({ operation: 'goToDefinition', filePath: 'b.ts', line: 5, character: 10 });
    expect(r.text).toBe('a.ts:1:17');
  });

  it('answers for Python through pyright', { timeout: 120_000 }, async () => {
    const def = await lsp({ operation: 'goToDefinition', filePath: 'main.py', line: 3, character: 7 });
    expect(def.text).toBe('mod.py:1:5');
    expect(def.data.server).toBe('python');
    const refs = await lsp({ operation: 'findReferences', filePath: 'mod.py', line: 1, character: 5 });
    expect(refs.text.split('\n').sort()).toEqual(['main.py:1:17', 'main.py:3:7', 'mod.py:1:5']);
  });

  it('starts a server again, once, when it has died', { timeout: 120_000 }, async () => {
    const manager = lspManagerFor(project.context);
    const pid = manager.pidOf('typescript')!;
    process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const r = await lsp({ operation: 'hover', filePath: 'a.ts', line: 1, character: 17 });
    expect(r.text).toContain('function greet');
    expect(manager.pidOf('typescript')).not.toBe(pid);
  });
});

describe.skipIf('skip' in servers)('LSP servers and the session', () => {
  it('are shut down when the session ends (the task registry shuts down)', { timeout: 120_000 }, async () => {
    const session = makeProject({ dir: mkdtempSync(path.join(os.tmpdir(), 'toolgate-lsp-end-')), settings: { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } } });
    writeFileSync(path.join(session.dir, 'm.py'), 'x = 1\n');
    await callTool(LspTool, { operation: 'hover', filePath: 'm.py', line: 1, character: 1 }, session.context);
    const pid = lspManagerFor(session.context).pidOf('python')!;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await session.cleanup();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('LSP without a server', () => {
  let other: TestProject;
  beforeAll(() => {
    other = makeProject({ settings: { env: { PATH: '/nonexistent' }, lsp: { servers: { broken: { command: 'no-such-language-server', extensionToLanguage: { '.zz': 'zz' } } } } } });
  });
  afterAll(async () => {
    await other.cleanup();
  });

  it('says which files no server handles, and which server is not installed', async () => {
    writeFileSync(path.join(other.dir, 'x.rs'), 'fn main() {}\n');
    writeFileSync(path.join(other.dir, 'x.ts'), 'export {};\n');
    writeFileSync(path.join(other.dir, 'x.zz'), 'zz\n');
    await expect(callTool(LspTool, { operation: 'hover', filePath: 'x.rs', line: 1, character: 1 }, other.context)).rejects.toThrow(/No language server handles \.rs files/);
    await expect(callTool(LspTool, { operation: 'hover', filePath: 'x.ts', line: 1, character: 1 }, other.context)).rejects.toThrow(/typescript language server \(typescript-language-server\) is not installed here\. Install it \(npm install --save-dev typescript-language-server typescript\)/);
    await expect(callTool(LspTool, { operation: 'hover', filePath: 'x.zz', line: 1, character: 1 }, other.context)).rejects.toThrow(/broken language server \(no-such-language-server\) is not installed/);
    await expect(callTool(LspTool, { operation: 'hover', filePath: 'x.ts', line: 0, character: 1 }, other.context)).rejects.toThrow();
  });

  it('a server that would start from inside the project needs a person’s yes (it runs the repository’s code)', async () => {
    const local = path.join(other.dir, 'node_modules', '.bin');
    mkdirSync(local, { recursive: true });
    writeFileSync(path.join(local, 'typescript-language-server'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(local, 'typescript-language-server'), 0o755);
    const decision = await LspTool.checkPermissions({ operation: 'hover', filePath: 'x.ts', line: 1, character: 1 }, other.context);
    expect(decision).toMatchObject({ behavior: 'ask', decisionReason: { layer: 'safetyCheck', classifierApprovable: false } });
    expect(decision.behavior === 'ask' && decision.message).toContain('runs code the repository supplies');
    rmSync(path.join(other.dir, 'node_modules'), { recursive: true });
  });

  it('dies with its server when it crashes twice', async () => {
    const local = path.join(other.dir, 'crash.sh');
    writeFileSync(local, '#!/bin/sh\nexit 3\n');
    chmodSync(local, 0o755);
    const outsider = makeProject({ settings: { lsp: { servers: { crash: { command: local, extensionToLanguage: { '.cr': 'cr' } } } } } });
    try {
      writeFileSync(path.join(outsider.dir, 'f.cr'), 'x\n');
      await expect(callTool(LspTool, { operation: 'hover', filePath: 'f.cr', line: 1, character: 1 }, outsider.context)).rejects.toThrow(/The crash language server failed: .*exited \(code 3\)/);
    } finally {
      await outsider.cleanup();
    }
  });
});
