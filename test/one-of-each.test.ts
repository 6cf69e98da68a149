/**
 * One of each (issue 18): the house has one loop, one place where a tool_use block from outside is read, and one
 * place where the pipeline's calls are prepared (looked up and parsed). These tests read the sources' imports and
 * calls, so that a second copy cannot come back unnoticed; each names the one module that may do the thing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

function sources(): { file: string; text: string }[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test(-d)?\.tsx?$/.test(e.name) && !e.parentPath.split(path.sep).includes('test-helpers'))
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(SRC, file), text: readFileSync(file, 'utf8') };
    });
}

/** Files (relative to src/) whose code calls `name(` — comments and strings aside, as far as a line scan can tell. */
function callersOf(name: string): string[] {
  const call = new RegExp(`(?<![\\w.#])${name}\\(`);
  return sources()
    .filter(({ text }) =>
      text.split('\n').some((line) => {
        const code = line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '');
        return call.test(code) && !new RegExp(`function\\s+${name}\\(`).test(code);
      }),
    )
    .map(({ file }) => file)
    .sort();
}

describe('one of each', () => {
  it('one loop: only query() runs model steps; the durable session runs query()', () => {
    // agent/compact.ts sends one summary request with tool_choice none (no tool step, no turn, no turn hooks): a
    // request, not a second loop. Any other caller is.
    // agent/run-turn.ts is the loop's own turn (its one caller is query()).
    expect(callersOf('modelStep')).toEqual(['agent/compact.ts', 'agent/run-turn.ts']);
    expect(callersOf('runQueryTurn')).toEqual(['agent/query.ts']);
    const durable = readFileSync(path.join(SRC, 'distributed/durable-session.ts'), 'utf8');
    expect(durable).toMatch(/from '\.\.\/agent\/query\.js'/);
    expect(durable).not.toMatch(/model-step|tool-step/);
  });

  it('a block from outside is read at the entries only: the runtime (run/stream/begin) and the prepared call', () => {
    expect(callersOf('snapshotAssistantMessage')).toEqual(['agent/runtime.ts']);
    expect(callersOf('snapshotContentBlock')).toEqual(['execution/prepared-tool-use.ts']);
  });

  it('a call is looked up and parsed once, when it is prepared; the pipeline trusts the prepared call', () => {
    expect(callersOf('parseToolInput')).toEqual(['execution/prepared-tool-use.ts', 'execution/pipeline.ts'].sort());
    const pipeline = readFileSync(path.join(SRC, 'execution/pipeline.ts'), 'utf8');
    // The pipeline parses only an input a hook or a person rewrote; the model's input arrives parsed.
    expect(pipeline.match(/parseToolInput\(/g)).toHaveLength(2);
    expect(pipeline).toMatch(/parseToolInput\(tool, pre\.updatedInput\)/);
    expect(pipeline).toMatch(/parseToolInput\(tool, decision\.updatedInput\)/);
    expect(callersOf('findToolByName').filter((f) => f.startsWith('execution/'))).toEqual(['execution/prepared-tool-use.ts']);
  });

  it('the tool step builds the user message of a turn; the runtime builds its own only when a caller reads it', () => {
    expect(callersOf('toolResultsMessage')).toEqual(['agent/tool-run.ts', 'agent/tool-step.ts']);
    expect(readFileSync(path.join(SRC, 'agent/tool-run.ts'), 'utf8')).toMatch(/get message\(\)/);
  });

  it('one git runner: no module but tool/git-runner.ts starts git (toolgate’s own git is hardened there, issue 32)', () => {
    const starters: string[] = [];
    let childProcessModules = 0;
    for (const { file, text } of sources()) {
      if (!/from\s*['"](node:)?child_process['"]/.test(text)) continue;
      childProcessModules++;
      const code = text
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .split('\n')
        .map((line) => line.replace(/\/\/.*$/, ''))
        .join('\n');
      // A literal naming git (`'git'`, `"/usr/bin/git"`) in a module that starts processes.
      if (/['"`](?:[^'"`\s]*\/)?git['"`]/.test(code)) starters.push(file);
    }
    expect(childProcessModules).toBeGreaterThan(5);
    expect(starters).toEqual([path.join('tool', 'git-runner.ts')]);
  });

  it('each tool keeps to its own room: a tool folder imports from itself, tools/shared and lower layers only', () => {
    const crossings: string[] = [];
    for (const { file, text } of sources()) {
      const m = /^tools\/([^/]+)\//.exec(file);
      if (!m || m[1] === 'shared') continue;
      for (const [, spec] of text.matchAll(/from\s*['"](\.[^'"]+)['"]/g)) {
        const target = path.relative(SRC, path.resolve(SRC, path.dirname(file), spec!));
        const room = /^tools\/([^/]+)\//.exec(target)?.[1];
        if (room !== undefined && room !== m[1] && room !== 'shared') crossings.push(`${file} -> ${target}`);
      }
    }
    expect(crossings).toEqual([]);
  });
});
