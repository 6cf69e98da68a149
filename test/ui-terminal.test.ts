/**
 * More of the interactive session in a real terminal (pty + xterm, the model played by the scripted server): the
 * AskUserQuestion picker and the plan approval answered by keys, a resize that reflows the open dialog, colours
 * only without NO_COLOR, bare `toolgate` starting the session, SIGTERM/SIGHUP during a running Bash, and
 * `toolgate run --continue` going on with the last session. Screens are polled; nothing is timed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedResponse, type ScriptedServer } from '../src/testing/index.js';
import { waitFor } from '../src/tools/bash/test-helpers/project.js';
import { spawnToolgate, type PtyOptions, type PtyScreen } from './helpers/pty-screen.js';

let dir: string;
let work: string;
let server: ScriptedServer | undefined;
const terms: PtyScreen[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-term-')));
  work = path.join(dir, 'work');
  mkdirSync(work);
  mkdirSync(path.join(dir, 'home'));
});

afterEach(async () => {
  // Gone before its folder is removed: a session still writing its transcript would make the removal fail.
  await Promise.all(terms.splice(0).map((t) => (t.kill(), t.exited)));
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, input: Record<string, unknown>): ScriptedResponse => ({ content: [{ type: 'tool_use', name, input }] });
const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server!.url,
    ...extra,
  };
}

function start(args: readonly string[], options: PtyOptions = {}): PtyScreen {
  const t = spawnToolgate(args, { env: env(), ...options });
  terms.push(t);
  return t;
}

/** The tool_result blocks of the last request the model got. */
function lastResults(): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const body = server!.messageRequests.at(-1)!.body as { messages: { content: unknown }[] };
  return body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === 'tool_result');
}

// Foreground colours (30–37, 90–97, 38;…) in an SGR sequence; bold or dim alone are not colour.
const COLOUR_SGR = new RegExp(`${String.fromCharCode(27)}\\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])(?:;[0-9;]*)?m`);
const DOWN = '\u001b[B';

describe('the interactive session in a terminal', () => {
  it('answers AskUserQuestion by keys, reflows the open picker on a resize, and draws in colour', async () => {
    server = await startScriptedServer([
      tool('AskUserQuestion', {
        questions: [
          {
            question: 'Which colour should the banner be?',
            header: 'Colour',
            options: [
              { label: 'Red', description: 'loud' },
              { label: 'Green', description: 'calm' },
              { label: 'Blue', description: 'cool' },
            ],
            multiSelect: false,
          },
        ],
      }),
      text('Green it is.'),
    ]);
    const t = start(['run', '--cwd', work]);
    await t.waitFor('Ask for something', 60_000);
    t.write('pick a colour\r');
    const wide = await t.waitFor('Which colour should the banner be?');
    // The picker's frame spans the terminal's 100 columns…
    expect(wide.split('\n').some((l) => l.startsWith('╭') && l.endsWith('╮') && l.length === 100)).toBe(true);
    t.resize(60, 40);
    // …and after the resize, 60.
    await t.waitFor((s) => s.split('\n').some((l) => l.startsWith('╭') && l.endsWith('╮') && l.length === 60));
    t.write(DOWN);
    await t.waitFor('❯ 2. Green');
    t.write('\r');
    await t.waitFor('Green it is.');
    const screen = await t.waitFor('→ Green');
    expect(screen).toContain('Which colour should the banner be? → Green');
    const [result] = lastResults();
    expect(JSON.stringify(result!.content)).toContain('\\"Which colour should the banner be?\\" = \\"Green\\"');
    expect(t.raw()).toMatch(COLOUR_SGR);
    t.write('\u0004');
    expect(await t.exited).toBe(0);
  }, 120_000);

  it('presents the plan in plan mode and leaves plan mode when it is approved by keys', async () => {
    server = await startScriptedServer([
      tool('ToolSearch', { query: 'select:ExitPlanMode' }),
      tool('ExitPlanMode', { plan: '# Tidy up\n\n1. Remove the dead code\n2. Run the tests' }),
      text('Starting the work.'),
    ]);
    const t = start(['run', '--cwd', work, '--permission-mode', 'plan']);
    await t.waitFor('plan mode (read-only)', 60_000);
    t.write('plan the tidy-up\r');
    const dialog = await t.waitFor('start the work?');
    expect(dialog).toContain('Remove the dead code');
    expect(t.screen()).toContain('Loaded ExitPlanMode');
    t.write('\r');
    await t.waitFor('Starting the work.');
    expect(await t.waitFor('Plan approved')).toContain('Plan approved · mode: default');
    // The status line follows once the turn is over.
    await t.waitFor('asks before changes');
    expect(lastResults().at(-1)!.is_error).toBeUndefined();
    t.write('\u0004');
    expect(await t.exited).toBe(0);
  }, 120_000);

  it('bare `toolgate` on a terminal starts the session, and NO_COLOR=1 leaves every colour out', async () => {
    server = await startScriptedServer([{ content: [{ type: 'text', text: 'Plain **words** here.' }, { type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] }, text('Nothing else.')]);
    // The command as a person runs it, from a folder of their own (not the checkout).
    const t = start([], { cwd: work, bin: true, env: env({ NO_COLOR: '1' }) });
    await t.waitFor('Ask for something', 60_000);
    t.write('look\r');
    await t.waitFor('Nothing else.');
    expect(t.screen()).toContain('Plain words here.');
    expect(t.raw()).not.toMatch(COLOUR_SGR);
    t.write('\u0004');
    expect(await t.exited).toBe(0);
  }, 120_000);

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} during a running Bash: the call gets its result in the transcript, no process is left, exit ${code}`, async () => {
      const marker = `sleep 48.${code}`;
      server = await startScriptedServer([tool('Bash', { command: `echo started; ${marker}; echo never` }), text('unreachable')]);
      // bypassPermissions as root needs Claude Code's opt-in (IS_SANDBOX=1; the tests may run as root).
      const t = start(['run', '--cwd', work, '--allowedTools', 'Bash(echo started:*)', '--permission-mode', 'bypassPermissions'], { env: env({ IS_SANDBOX: '1' }) });
      await t.waitFor('Ask for something', 60_000);
      t.write('wait a while\r');
      await t.waitFor('started');
      await waitFor(() => pgrep(marker), 20_000, 'the sleep to start');
      process.kill(t.pid, signal);
      expect(await t.exited).toBe(code);
      await waitFor(() => !pgrep(marker), 10_000, 'the process group to end');

      const sessions = path.join(dir, 'state', 'toolgate', 'sessions');
      const [id] = readdirSync(sessions);
      const entries = readFileSync(path.join(sessions, id!, 'transcript.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; message?: { content: unknown } });
      const blocks = entries.flatMap((e) => (e.type === 'message' && Array.isArray(e.message!.content) ? e.message!.content : []));
      const use = blocks.find((b: { type: string }) => b.type === 'tool_use') as { id: string };
      expect(blocks.filter((b: { type: string; tool_use_id?: string }) => b.type === 'tool_result' && b.tool_use_id === use.id)).toHaveLength(1);
    }, 120_000);
  }

  it('`toolgate run --continue` goes on with the last session: shown on screen, sent once to the model', async () => {
    server = await startScriptedServer([text('Noted: PAPAYA.'), text('Still noted.'), text('The word was PAPAYA.')]);
    const first = start(['run', '--cwd', work]);
    await first.waitFor('Ask for something', 60_000);
    first.write('remember the word PAPAYA\r');
    await first.waitFor('Noted: PAPAYA.');
    // The answer is on screen before the turn has ended, and a line sent during a turn is refused: wait for the idle
    // prompt (its placeholder comes back) before the next one.
    await first.waitFor('Ask for something');
    first.write('and keep it\r');
    await first.waitFor('Still noted.');
    first.write('\u0004');
    expect(await first.exited).toBe(0);

    const again = start(['run', '--continue', '--cwd', work]);
    const shown = await again.waitFor('Continuing session', 60_000);
    expect(shown).toContain('remember the word PAPAYA');
    expect(shown).toContain('Still noted.');
    again.write('what was the word?\r');
    await again.waitFor('The word was PAPAYA.');
    const body = server.messageRequests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const said = body.messages.map((m) => `${m.role}:${JSON.stringify(m.content)}`);
    // Each earlier message exactly once (a turn resumes the transcript instead of writing the conversation again).
    expect(said.filter((s) => s.includes('remember the word PAPAYA'))).toHaveLength(1);
    expect(said.filter((s) => s.includes('Noted: PAPAYA.'))).toHaveLength(1);
    expect(said.filter((s) => s.includes('Still noted.'))).toHaveLength(1);
    expect(said.at(-1)).toContain('what was the word?');
    expect(readdirSync(path.join(dir, 'state', 'toolgate', 'sessions'))).toHaveLength(1);
    again.write('\u0004');
    expect(await again.exited).toBe(0);
  }, 150_000);
});

function pgrep(pattern: string): boolean {
  return spawnSync('pgrep', ['-f', pattern]).status === 0;
}
