/**
 * A file a Read deny rule names that has another name (a hard link planted before the session) is said at session
 * start: through the runtime's `warnings`, and on stderr of the CLI. Files with one name, and glob rules, say nothing.
 */
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { toolgate } from './helpers/cli.js';
import { tempSession, type TempSession } from './helpers/execution.js';

let session: TempSession;
let work: string;
beforeEach(() => {
  session = tempSession('toolgate-hardlink-');
  work = path.join(session.dir, 'work');
  mkdirSync(path.join(work, 'cfg'), { recursive: true });
  writeFileSync(path.join(work, 'secret.txt'), 'TOPSECRET\n');
  writeFileSync(path.join(work, 'plain.txt'), 'x\n');
  writeFileSync(path.join(work, '.env'), 'A=1\n');
});
afterEach(() => session.cleanup());

const deny = ['Read(./secret.txt)', 'Read(./plain.txt)', 'Read(./*.env)', 'Read(./.env)'];

describe('hard links to denied files', () => {
  it('the runtime warns once per linked file, naming the rule and how to find the other names', async () => {
    linkSync(path.join(work, 'secret.txt'), path.join(work, 'cfg', 'innocent.txt'));
    linkSync(path.join(work, '.env'), path.join(session.dir, 'outside-name'));
    const runtime = await createToolRuntime({ cwd: work, sessionDir: path.join(session.dir, 's'), settings: { sources: [], object: { permissions: { deny } } } });
    try {
      const linked = runtime.warnings.filter((w) => w.includes('hard links'));
      expect(linked).toHaveLength(2);
      expect(linked[0]).toContain(`${path.join(work, 'secret.txt')}, denied by Read(./secret.txt), has 2 names`);
      expect(linked[0]).toContain(`find ${work} -samefile ${path.join(work, 'secret.txt')}`);
      expect(linked[1]).toContain(`${path.join(work, '.env')}, denied by Read(./.env)`);
    } finally {
      await runtime.dispose();
    }
  });

  it('nothing when every denied file has one name', async () => {
    const runtime = await createToolRuntime({ cwd: work, sessionDir: path.join(session.dir, 's'), settings: { sources: [], object: { permissions: { deny } } } });
    try {
      expect(runtime.warnings.filter((w) => w.includes('hard links'))).toEqual([]);
    } finally {
      await runtime.dispose();
    }
  });

  it('toolgate exec says it on stderr', async () => {
    linkSync(path.join(work, 'secret.txt'), path.join(work, 'cfg', 'innocent.txt'));
    const settings = path.join(session.dir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ permissions: { deny } }));
    const r = await toolgate(['exec', '--json', '--cwd', work, '--session-dir', path.join(session.dir, 's'), '--settings', settings, '-'], {
      input: JSON.stringify([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'true' } }]),
      env: { ...process.env, HOME: path.join(session.dir, 'home') },
    });
    expect(r.stderr).toContain(`toolgate: warning: ${path.join(work, 'secret.txt')}, denied by Read(./secret.txt), has 2 names (hard links)`);
  });
});
