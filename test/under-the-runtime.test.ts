/**
 * One session under the faces (issue 33), kept so: the faces translate and reach nothing under the runtime. These
 * tests read the sources' imports and calls, as test/one-of-each.test.ts does for the loop, so that a face that grows
 * its own wiring again — a runtime's context, a tool's folder, its own loop, MCP start-up or permission applier — is
 * caught; each names the one module that may do the thing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/** The faces: they translate options and events; the session under them wires the rest. */
const FACES = ['agent-sdk/', 'cli/', 'ui/', 'session/', 'distributed/durable-session.ts', 'distributed/session-client.ts'];
const isFace = (file: string) => FACES.some((f) => file.startsWith(f));

function sources(): { file: string; text: string }[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test(-d)?\.tsx?$/.test(e.name) && !e.parentPath.split(path.sep).includes('test-helpers'))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(SRC, file), text: readFileSync(file, 'utf8') };
    });
}

/** Each relative import (static, re-export, dynamic) of `file`, as a path relative to src/. */
function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => (m[1] ?? m[2])!);
  return specs.map((spec) => path.relative(SRC, path.resolve(SRC, path.dirname(file), spec)).replace(/\.js$/, '.ts'));
}

/** Files whose code (comments aside) matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return sources()
    .filter(({ text }) => text.split('\n').some((line) => pattern.test(line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, ''))))
    .map(({ file }) => file)
    .sort();
}

/** The house's one writer per file (test/one-of-each.test.ts): the session's checkpoint restore writes through it too. */
const ONE_WRITER = new Set(['tools/shared/atomic-write.ts']);

describe('nothing reaches under the runtime', () => {
  it('ToolRuntime hands out no context; only the agent layer reads a runtime\'s context (runtime-context.ts)', () => {
    const types = readFileSync(path.join(SRC, 'agent/types.ts'), 'utf8');
    const start = types.indexOf('export interface ToolRuntime {');
    const runtime = types.slice(start, types.indexOf('\n}\n', start));
    expect(runtime).toContain('applyPermissionUpdates');
    expect(runtime).not.toMatch(/readonly context\b/);
    const readers = sources().filter(({ file, text }) => importsOf(file, text).includes('agent/runtime-context.ts'));
    expect(readers.length).toBeGreaterThan(3);
    expect(readers.map((r) => r.file).filter((f) => !f.startsWith('agent/'))).toEqual([]);
    expect(filesMatching(/\b(runtime|rt)\.context\b/).filter(isFace)).toEqual([]);
  });

  it('faces import no tool folder', () => {
    const crossings = sources()
      .filter(({ file }) => isFace(file))
      .flatMap(({ file, text }) => importsOf(file, text).filter((target) => target.startsWith('tools/') && !ONE_WRITER.has(target)).map((target) => `${file} -> ${target}`));
    expect(crossings).toEqual([]);
  });

  it('one session engine: the loop is run by the session (and by the durable session object on the workers)', () => {
    const runners = sources()
      .filter(({ file, text }) => !['index.ts', 'internals.ts'].includes(file) && !file.startsWith('agent/') && importsOf(file, text).includes('agent/query.ts'))
      .map((s) => s.file);
    expect(runners.sort()).toEqual(['distributed/durable-session.ts', 'session/local-run.ts']);
  });

  it('MCP servers of a session start in one place; permission updates have one applier', () => {
    // cli/commands/mcp*.ts: `toolgate mcp list|get|login` read and log in to the configured servers, no session.
    expect(filesMatching(/new McpClientManager\(/).filter((f) => !f.startsWith('cli/commands/mcp'))).toEqual(['session/mcp.ts']);
    // The pure applier is the one applier's own step; everyone else goes through savePermissionUpdates (the runtime's
    // applyPermissionUpdates for the session and the faces, the PermissionRequest hook step in the pipeline).
    const importing = (name: string) => filesMatching(new RegExp(`import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'[^']*permission-updates\\.js'`));
    expect(importing('applyPermissionUpdates')).toEqual([]);
    expect(importing('savePermissionUpdates')).toEqual(['agent/runtime.ts', 'execution/hook-steps.ts']);
  });

  it('"inline JSON or a path" is told apart in one place', () => {
    expect(filesMatching(/startsWith\('\{'\)/).filter((f) => !f.startsWith('hooks/') && f !== 'mcp/result.ts')).toEqual(['tool/read-config-file.ts']);
  });
});
