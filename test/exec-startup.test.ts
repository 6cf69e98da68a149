/**
 * What `toolgate exec` loads: only the tools its blocks name (and not the Anthropic SDK, which a run without a model
 * never uses, nor the Restate backend's HTTP client). Watched with a module loader hook in the real CLI's process (node + tsx) that writes down every module
 * it loads. A name that is not a catalogue entry's own (the alias Task) loads the whole catalogue, as before.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempSession, type TempSession } from './helpers/execution.js';

const root = path.resolve(import.meta.dirname, '..');

let session: TempSession;
let work: string;
beforeEach(() => {
  session = tempSession('toolgate-exec-startup-');
  work = path.join(session.dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(session.dir, 'home'));
  writeFileSync(path.join(work, 'notes.txt'), 'alpha\n');
});
afterEach(() => session.cleanup());

/** Runs `toolgate exec` on these blocks; returns its output and the modules it loaded (file URLs). */
function execLoading(blocks: unknown[]): { stdout: string; loaded: string[] } {
  const log = path.join(session.dir, 'loaded.txt');
  writeFileSync(log, '');
  const hooks = path.join(session.dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const register = path.join(session.dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const out = spawnSync(process.execPath, ['--import', register, '--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'exec', '--cwd', work, '-'], {
    cwd: root,
    env: { ...process.env, HOME: path.join(session.dir, 'home'), XDG_STATE_HOME: path.join(session.dir, 'state') },
    input: blocks.map((b) => JSON.stringify(b)).join('\n'),
    encoding: 'utf8',
  });
  expect(out.stderr).not.toMatch(/Error/);
  return { stdout: out.stdout, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const toolModules = (loaded: readonly string[]) =>
  [...new Set(loaded.flatMap((u) => /\/src\/tools\/([^/]+)\/index\.ts$/.exec(u)?.[1] ?? []))].sort();

describe('toolgate exec loads what its blocks use', () => {
  it('a Read loads the Read tool only, and not the Anthropic SDK', () => {
    const { stdout, loaded } = execLoading([{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: path.join(work, 'notes.txt') } }]);
    expect(stdout).toContain('alpha');
    // Skill is made for the session from its skills (none here), not loaded from the catalogue.
    expect(toolModules(loaded)).toEqual(['read', 'skill', 'tool-search']);
    expect(loaded.filter((u) => u.includes('@anthropic-ai/sdk'))).toEqual([]);
    // Nor the agent's `run` (its options were read to route the arguments, though a command's name came first) or another command.
    expect(loaded.filter((u) => /\/src\/cli\/commands\/(?!exec\.ts$)[^/]+\.ts$/.test(u))).toEqual([]);
    // Nor the Restate backend (--backend restate=URL only), whose HTTP client brought node:http, node:https and tls.
    expect(loaded.filter((u) => /^node:(http|https|tls)$/.test(u) || (u.includes('/src/distributed/') && !u.endsWith('/backend-spec.ts')))).toEqual([]);
  });

  it('an alias (Task) loads the whole catalogue, and the call is answered as before', () => {
    const { stdout, loaded } = execLoading([
      { type: 'tool_use', id: 'toolu_1', name: 'Task', input: { description: 'x', prompt: 'y' } },
      { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: path.join(work, 'notes.txt') } },
    ]);
    expect(stdout).toContain('alpha');
    expect(stdout).toMatch(/Agent toolu_1/);
    expect(toolModules(loaded)).toEqual(expect.arrayContaining(['agent', 'bash', 'read', 'web-fetch']));
  });
});
