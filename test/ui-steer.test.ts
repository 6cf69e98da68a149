/**
 * Steering running commands from the interactive session, in a real terminal (`toolgate run` under a pty, read through
 * xterm, the model played by the scripted server): Ctrl+B moves a running Bash command to the background and the
 * model gets the "manually backgrounded by user" line; Esc during `git commit` (a slow pre-commit hook) says the
 * commit must not be cut halfway and lets it finish; Ctrl+C then leaves without waiting and stops it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { processesWithMarker, waitFor } from '../src/tools/bash/test-helpers/project.js';
import { spawnToolgate, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
let term: PtyScreen | undefined;
const HOOK = `steerhook${process.pid}`;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-steer-')));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.name', 'Test');
  git('config', 'user.email', 'test@example.com');
  git('config', 'commit.gpgsign', 'false');
  writeFileSync(path.join(work, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  // The wait never forks (a `read` that times out on a FIFO nobody writes): a forked `sleep` carries the marker until
  // it execs, and a count taken at that moment sees two processes (it failed CI once that way).
  const fifo = path.join(dir, 'wait');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(
    path.join(work, '.git', 'hooks', 'pre-commit'),
    `#!/bin/bash\nexec -a ${HOOK} bash -c 'exec 9<>"$0"; while [ ! -e release ]; do read -t 0.05 -u 9 || :; done' ${fifo}\n`,
    { mode: 0o755 },
  );
});

afterAll(async () => {
  // Gone before its folder is removed: a session still writing its transcript would make the removal fail.
  if (term) {
    term.kill();
    await term.exited;
  }
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, name, input }] });

describe('steering running commands in the session', () => {
  it('Ctrl+B sends a running command to the background; Esc waits for a commit to finish and says why', async () => {
    server = await startScriptedServer([
      // prompt 1
      tool('Bash', { command: 'echo "started-$((6 * 7))"; while [ ! -e go ]; do sleep 0.05; done; echo finished' }),
      { content: [{ type: 'text', text: 'It goes on in the background.' }] },
      // prompt 2
      tool('Bash', { command: "git commit -q -m 'from the session'" }),
      // prompt 3 (after the interrupted turn)
      { content: [{ type: 'text', text: 'Committed, then stopped.' }] },
      // prompt 4
      tool('Bash', { command: 'git commit --allow-empty -q -m second' }),
    ]);
    term = spawnToolgate(['run', '--cwd', work, '--allowedTools', 'Bash'], {
      env: {
        PATH: process.env.PATH,
        HOME: path.join(dir, 'home'),
        XDG_STATE_HOME: path.join(dir, 'state'),
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
      },
    });
    const t = term;
    await t.waitFor('Ask for something', 60_000);
    t.write('start the long job\r');
    // The command's own output (not its text in the call's header): it runs, so Ctrl+B has something to move.
    await t.waitFor('started-42');
    expect(t.screen()).toContain('Ctrl+B to run in the background');
    t.write('\x02');
    await t.waitFor('Moved to the background');
    await t.waitFor('It goes on in the background.');
    const second = server.messageRequests[1]!.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(second.messages.at(-1)!.content)).toMatch(/Command was manually backgrounded by user with ID: b\w+\. Output is being written to: /);
    await t.waitFor(/1 background task/);
    writeFileSync(path.join(work, 'go'), '');

    await t.waitFor('Ask for something');
    t.write('commit it\r');
    await waitFor(() => processesWithMarker(HOOK).length === 1, 30_000, 'the pre-commit hook to run');
    t.write('\x1b');
    await t.waitFor(/waiting for `git commit[^]*must not be cut/);
    expect(t.screen()).toContain("git commit -q -m 'from the session'");
    // Still running after the interrupt: only the hook's end lets it go.
    expect(processesWithMarker(HOOK).length).toBe(1);
    writeFileSync(path.join(work, 'release'), '');
    await t.waitFor('Interrupted');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: work, encoding: 'utf8' }).trim()).toBe('from the session');

    await t.waitFor('Ask for something');
    t.write('thanks\r');
    await t.waitFor('Committed, then stopped.');

    // The same wait, but the person leaves instead: Ctrl+C after the interrupt does not wait, and stops the commit.
    rmSync(path.join(work, 'release'));
    await t.waitFor('Ask for something');
    t.write('commit again\r');
    await waitFor(() => processesWithMarker(HOOK).length === 1, 30_000, 'the second pre-commit hook to run');
    t.write('\x1b');
    await t.waitFor(/waiting for `git commit --allow-empty[^]*Ctrl\+C leaves\s+without waiting/);
    t.write('\x03');
    expect(await t.exited).toBe(0);
    expect(processesWithMarker(HOOK)).toEqual([]);
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: work, encoding: 'utf8' }).trim()).toBe('from the session');
  }, 180_000);
});
