/**
 * A real terminal for tests and benchmarks: the `toolgate` CLI (from the sources, through tsx) under a
 * pseudo-terminal (@lydell/node-pty), its output fed to a headless xterm (@xterm/headless) — what a person would
 * see is read back from xterm's screen buffer, after xterm has parsed every escape sequence.
 */
import path from 'node:path';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { repoRoot } from './cli.js';

export interface PtyScreen {
  /** The visible screen, one string per row, trailing spaces trimmed. */
  screen(): string;
  /** Every line the terminal holds: scrollback and screen. */
  transcript(): string;
  /** Every byte the program wrote, escape sequences included. */
  raw(): string;
  write(data: string): void;
  /** Resolves once `test` holds for the screen text; rejects with the screen after `timeoutMs`. */
  waitFor(test: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number>;
  resize(cols: number, rows: number): void;
  /** Bytes written by the program so far (benchmarks wait for them to be parsed). */
  readonly pid: number;
  /** Resolves once xterm has parsed everything received so far. */
  flush(): Promise<void>;
  kill(): void;
}

export interface PtyOptions {
  readonly cols?: number;
  readonly rows?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Start `bin/toolgate.js` (the command a person runs) instead of the CLI's source through `--import tsx`. */
  readonly bin?: boolean;
}

export function spawnToolgate(args: readonly string[], options: PtyOptions = {}): PtyScreen {
  const cols = options.cols ?? 100;
  const rows = options.rows ?? 40;
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 20_000 });
  // tsx by its resolved URL: the program may start in a folder with no node_modules of its own. `bin`: the command
  // as installed (bin/toolgate.js), which registers tsx itself in a checkout without dist/.
  const argv = options.bin
    ? [path.join(repoRoot, 'bin/toolgate.js'), ...args]
    : ['--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/cli/main.ts'), ...args];
  const child = pty.spawn(process.execPath, argv, {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: options.cwd ?? repoRoot,
    // tsx reads the tsconfig of the working directory unless told which (the UI's .tsx needs `jsx: react-jsx`).
    env: { TERM: 'xterm-256color', ...(options.bin ? {} : { TSX_TSCONFIG_PATH: path.join(repoRoot, 'tsconfig.json') }), ...(options.env ?? process.env) } as Record<
      string,
      string
    >,
  });
  let pending = Promise.resolve();
  let raw = '';
  child.onData((data) => {
    raw += data;
    pending = pending.then(() => new Promise<void>((resolve) => term.write(data, resolve)));
  });
  const exited = new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)));
  const lines = (from: number, to: number) => {
    const out: string[] = [];
    const buffer = term.buffer.active;
    for (let i = from; i < to; i++) out.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return out.join('\n');
  };
  const screen = () => lines(term.buffer.active.baseY, term.buffer.active.baseY + term.rows);
  const transcript = () => lines(0, term.buffer.active.length);
  return {
    screen,
    transcript,
    raw: () => raw,
    pid: child.pid,
    write: (data) => child.write(data),
    exited,
    resize(c, r) {
      child.resize(c, r);
      term.resize(c, r);
    },
    flush: () => pending,
    kill: () => {
      try {
        child.kill();
      } catch {
        // already gone
      }
    },
    async waitFor(test, timeoutMs = 60_000) {
      const check = typeof test === 'function' ? test : (s: string) => (typeof test === 'string' ? s.includes(test) : test.test(s));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await pending;
        const s = screen();
        if (check(s)) return s;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(test)}; the screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 15));
      }
    },
  };
}
