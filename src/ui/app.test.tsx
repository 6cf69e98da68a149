import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Session } from '../session/index.js';
import { App } from './app.js';
import { TerminalSession } from './session.js';
import { SessionStore } from './session-store.js';
import { fakeLoop, type FakeTurn } from './test-helpers/fake-loop.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function mount(turns: FakeTurn[]) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-ui-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = new SessionStore('default', 'test-model');
  const core = new Session({
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: 'sk-test' },
    settingSources: ['project', 'local'],
    loop: fakeLoop(turns),
    onPermissionRequest: (r) => store.askPermission(r),
    onQuestion: (r) => store.askQuestion(r),
  });
  await core.start();
  cleanups.push(() => core.close());
  await store.preloadViews(core.tools);
  const session = new TerminalSession({ session: core, store });
  let exited = false;
  const ui = render(<App store={store} session={session} cwd={dir} onExit={() => (exited = true)} />);
  cleanups.push(() => ui.unmount());
  const frame = () => ui.lastFrame() ?? '';
  const type = async (text: string) => {
    ui.stdin.write(text);
    await new Promise((r) => setTimeout(r, 20));
  };
  return { dir, ui, frame, type, session, store, exited: () => exited };
}

describe('the session app', () => {
  it('streams text, draws tool calls through their views, and remembers "don\'t ask again" in .claude/settings.local.json', async () => {
    const turns: FakeTurn[] = [
      { text: 'Reading **the** file.', tools: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
      { text: 'Now the command.', tools: [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
      { text: 'Again.', tools: [{ name: 'Bash', input: { command: 'touch made.txt' } }] },
    ];
    const app = await mount(turns);
    writeFileSync(path.join(app.dir, 'notes.txt'), 'a\nb\nc\n');
    await app.type('read it');
    await app.type('\r');
    await until(() => app.frame().includes('Read 4 lines'), 'the Read result');
    expect(app.frame()).toContain('Reading the file.');
    expect(app.frame()).toMatch(/● Read\(notes\.txt\)/);

    await app.type('run it\r');
    await until(() => app.frame().includes('Allow Bash?'), 'the permission dialog');
    const dialog = app.frame();
    expect(dialog).toContain('touch made.txt');
    const rule = /Yes, and don't ask again for (Bash\(touch[^)]*\))/.exec(dialog)?.[1];
    expect(rule).toBeDefined();
    expect(dialog).toContain('Why: touch is not a known read-only command');
    expect(dialog).toContain('.claude/settings.local.json');
    await app.type('2');
    await until(() => !app.frame().includes('Allow Bash?') && !app.session.busy, 'the command to run');
    const settings = JSON.parse(readFileSync(path.join(app.dir, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings.permissions.allow).toContain(rule);

    await app.type('again\r');
    await until(() => app.frame().includes('Again.') && !app.session.busy, 'the second command');
    expect(app.frame()).not.toContain('Allow Bash?');
    expect(app.store.getSnapshot().dialogs).toHaveLength(0);
  });

  it('a destructive call looks destructive: its risk is shown, and "don\'t ask again" takes a second step', async () => {
    const app = await mount([
      { tools: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
      { tools: [{ name: 'Write', input: { file_path: 'notes.txt', content: 'replaced\n' } }] },
    ]);
    writeFileSync(path.join(app.dir, 'notes.txt'), 'a\nb\nc\n');
    const localSettings = path.join(app.dir, '.claude', 'settings.local.json');
    await app.type('read\r');
    await until(() => app.frame().includes('Read 4 lines') && !app.session.busy, 'the Read result');
    await app.type('overwrite\r');
    await until(() => app.frame().includes('Allow Write'), 'the permission dialog');
    expect(app.frame()).toContain('Risk: destructive');
    expect(app.frame()).toContain('DESTRUCTIVE');
    // "Don't ask again" writes nothing yet: a second screen asks, and Back returns to the choices.
    await app.type('2');
    await until(() => app.frame().includes('This call is destructive'), 'the confirmation');
    expect(existsSync(localSettings)).toBe(false);
    expect(readFileSync(path.join(app.dir, 'notes.txt'), 'utf8')).toBe('a\nb\nc\n');
    await app.type('1');
    await until(() => app.frame().includes('Yes, this once') && !app.frame().includes('This call is destructive'), 'the choices again');
    expect(existsSync(localSettings)).toBe(false);
    // Confirmed: the rule is written and the call runs.
    await app.type('2');
    await until(() => app.frame().includes('This call is destructive'), 'the confirmation again');
    await app.type('2');
    await until(() => !app.session.busy, 'the write');
    expect(readFileSync(path.join(app.dir, 'notes.txt'), 'utf8')).toBe('replaced\n');
    expect(JSON.parse(readFileSync(localSettings, 'utf8')).permissions.allow.length).toBeGreaterThan(0);
  });

  it('a simulable sed -i is shown as the edit it makes, and approving writes that edit', async () => {
    const app = await mount([{ tools: [{ name: 'Bash', input: { command: "sed -i 's/beta/BETA/' notes.txt" } }] }]);
    writeFileSync(path.join(app.dir, 'notes.txt'), 'alpha\nbeta\n');
    await app.type('edit\r');
    await until(() => app.frame().includes('Allow Bash?'), 'the permission dialog');
    expect(app.frame()).toContain('sed edits notes.txt');
    expect(app.frame()).toContain('│ -beta');
    expect(app.frame()).toContain('│ +BETA');
    await app.type('1');
    await until(() => !app.session.busy, 'the edit');
    expect(readFileSync(path.join(app.dir, 'notes.txt'), 'utf8')).toBe('alpha\nBETA\n');
  });

  it('a call that is not destructive shows its risk and grants "don\'t ask again" at once', async () => {
    const app = await mount([{ tools: [{ name: 'Bash', input: { command: 'touch made.txt' } }] }]);
    await app.type('run\r');
    await until(() => app.frame().includes('Allow Bash?'), 'the permission dialog');
    expect(app.frame()).toContain('Risk: runs-code');
    expect(app.frame()).not.toContain('DESTRUCTIVE');
    await app.type('2');
    await until(() => !app.session.busy, 'the command');
    expect(app.frame()).not.toContain('This call is destructive');
    expect(existsSync(path.join(app.dir, 'made.txt'))).toBe(true);
  });

  it('denies with a message for the model, walks the prompt history, and exits on Ctrl+D', async () => {
    const app = await mount([{ tools: [{ name: 'Bash', input: { command: 'rm -f x.txt' } }] }]);
    await app.type('remove\r');
    await until(() => app.frame().includes('Allow Bash?'), 'the permission dialog');
    await app.type('3');
    await until(() => app.frame().includes('Enter sends'), 'the message field');
    await app.type('use git clean instead');
    await app.type('\r');
    await until(() => !app.session.busy, 'the turn to end');
    expect(app.frame()).toContain('The user refused: use git clean instead');
    await app.type('\x1b[A');
    await until(() => app.frame().includes('› remove'), 'the history entry');
    await app.type('\x15'); // Ctrl+U empties the line
    await app.type('\x04');
    expect(app.exited()).toBe(true);
  });

  it('lists the rules with their files on /permissions and cycles modes with Shift+Tab', async () => {
    const app = await mount([]);
    await import('node:fs').then((fs) => {
      fs.mkdirSync(path.join(app.dir, '.claude'), { recursive: true });
    });
    await app.type('/help\r');
    await until(() => app.frame().includes('/permissions'), 'the help');
    await app.type('\x1b[Z');
    await until(() => app.frame().includes('accepts edits'), 'acceptEdits mode');
    await app.type('\x1b[Z');
    await until(() => app.frame().includes('plan mode'), 'plan mode');
    await app.type('/permissions\r');
    await until(() => app.frame().includes('Mode: plan'), 'the rules');
  });
});
