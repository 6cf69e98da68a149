/**
 * The terminal UI's latency, measured on the real Ink renderer with the production options (60 fps cap), writing
 * to an in-memory terminal stream: from a byte on stdin (or a new finished line) to the frame that shows it being
 * written to stdout. Keystrokes are spaced 40 ms apart so each one is a fresh frame, not a throttled follow-up.
 */
import { PassThrough, Writable } from 'node:stream';
import { createElement } from 'react';
import { render } from 'ink';
import type { Session } from '../src/session/index.js';
import { App } from '../src/ui/app.js';
import { TerminalSession } from '../src/ui/session.js';
import { SessionStore } from '../src/ui/session-store.js';
import { median, round, type Benchmark } from './lib.js';

class Screen extends Writable {
  isTTY = true;
  columns = 120;
  rows = 40;
  private waiters: { text: string; resolve: () => void }[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    const s = chunk.toString();
    this.waiters = this.waiters.filter((w) => (s.includes(w.text) ? (w.resolve(), false) : true));
    done();
  }
  seen(text: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }
}

function mount() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => {}, ref: () => {}, unref: () => {} });
  const stdout = new Screen();
  const store = new SessionStore('default', 'bench');
  // Only the screen is measured: a session with no events, whose rules allow what Shift+Tab needs.
  const core = {
    events: async function* () {},
    permissions: () => ({ isBypassPermissionsModeAvailable: false, mode: 'default' }),
    mode: 'default',
    findTool: () => undefined,
    setMode: () => {},
  } as unknown as Session;
  const session = new TerminalSession({ session: core, store });
  const app = render(createElement(App, { store, session, cwd: '/', onExit: () => {} }), {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    maxFps: 60,
    patchConsole: false,
  });
  return { stdin, stdout, store, app };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function keystrokeMs(samples: number): Promise<number> {
  const { stdin, stdout, app } = mount();
  await sleep(100);
  const times: number[] = [];
  const letters = 'qwertyuiopasdfghjklzxcvbnm';
  let typed = '';
  for (let i = 0; i < samples; i++) {
    const ch = letters[i % letters.length]!;
    typed += ch;
    // The frame shows the whole prompt line; wait for the text up to the new character.
    const seen = stdout.seen(typed.slice(-6));
    const start = performance.now();
    stdin.write(ch);
    await seen;
    times.push(performance.now() - start);
    await sleep(40);
    if (typed.length > 60) {
      stdin.write('\x15'); // Ctrl+U: keep the line short, as a person's prompt is
      typed = '';
      await sleep(40);
    }
  }
  app.unmount();
  return median(times.slice(5));
}

async function newLineMs(heldLines: number, samples: number): Promise<number> {
  const { stdout, store, app } = mount();
  const perItem = 10;
  for (let i = 0; i < heldLines / perItem; i++) {
    store.notice(Array.from({ length: perItem }, (_, j) => `finished output line ${i * perItem + j}`).join('\n'));
  }
  await sleep(300);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const text = `fresh line number ${i} ${Math.random().toString(36).slice(2, 8)}`;
    const seen = stdout.seen(text);
    const start = performance.now();
    store.notice(text);
    await seen;
    times.push(performance.now() - start);
    await sleep(40);
  }
  app.unmount();
  return median(times.slice(3));
}

export const benchmarks: Benchmark[] = [
  {
    group: 'ui',
    names: ['ui.keystroke_to_frame_ms'],
    async run() {
      await keystrokeMs(15); // warm-up
      const value = await keystrokeMs(60);
      return [{ name: 'ui.keystroke_to_frame_ms', value: round(value, 3), unit: 'ms' }];
    },
  },
  {
    group: 'ui',
    names: ['ui.render_10k_lines_ms'],
    async run() {
      await newLineMs(0, 10); // warm-up: the first mount compiles the renderer
      const baseline = await newLineMs(0, 30);
      const value = await newLineMs(10_000, 30);
      return [{ name: 'ui.render_10k_lines_ms', value: round(value, 3), unit: 'ms', baseline: round(baseline, 3) }];
    },
  },
];
