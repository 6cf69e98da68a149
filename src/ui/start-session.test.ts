import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startInteractiveSession } from './start-session.js';
import { fakeLoop } from './test-helpers/fake-loop.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the session without a terminal', () => {
  it('prints the same items as plain text and refuses what would need a person', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-plain-')));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (d) => (out += String(d)));
    const code = await startInteractiveSession({
      tty: false,
      stdin: Readable.from(['read it\n', 'now run\n']) as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      session: {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: 'sk-test' },
        settingSources: [],
        loop: fakeLoop([
          { text: 'Reading.', tools: [{ name: 'Read', input: { file_path: 'a.txt' } }] },
          { tools: [{ name: 'Bash', input: { command: 'touch b.txt' } }] },
        ]),
      },
    });
    expect(code).toBe(0);
    expect(out).toContain('Reading.\n\n● Read(a.txt)\n  ⎿  Read 3 lines');
    expect(out).toContain('● Bash(touch b.txt)\n  ⎿  No terminal to ask the person on; the call was refused.');
    expect(out).not.toContain('\u001b[');
  });
});
