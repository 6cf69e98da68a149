/**
 * Starts an interactive session: one `Session` (src/session/) whose permission prompts and questions go to the
 * person, for the whole conversation; the Ink app on a terminal — or, without one, the same session printed as plain
 * text with prompts read line by line from stdin. Returns the exit code once the person leaves; the turn is
 * interrupted and the session ended (its runtime disposed) on the way out.
 */
import { createInterface } from 'node:readline';
import { Session, type SessionOptions } from '../session/index.js';
import type { BackgroundTask } from './session-store.js';
import { SessionStore } from './session-store.js';
import { SESSION_COMMANDS, TerminalSession } from './session.js';
import { drawConversation } from './draw-conversation.js';
import { itemText } from './plain-text.js';

/** The session and the terminal an interactive session runs with. */
export interface InteractiveOptions {
  /** The session, in toolgate's words; its prompts, questions and warnings are this terminal's. */
  readonly session: SessionOptions;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  /** Draw with Ink (default: when stdin and stdout are terminals). */
  readonly tty?: boolean;
  /** Ends the session as the person leaving would (a termination signal): the turn is interrupted, tools answered. */
  readonly signal?: AbortSignal;
  /** Sent as the first message once the session is up (`toolgate "PROMPT"`), as if typed. */
  readonly initialPrompt?: string;
  /** Told the session once it has started: an embedder's handle on it (its tools, its tasks, its MCP servers). */
  readonly onSession?: (session: Session) => void;
}

/** `NO_COLOR` (any non-empty value) turns colour off before chalk decides its level at import. */
function honourNoColor(): void {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') process.env.FORCE_COLOR = '0';
}

/** The interactive terminal session (`toolgate` with no arguments); resolves to the exit code. */
export async function startInteractiveSession(options: InteractiveOptions): Promise<number> {
  honourNoColor();
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const tty = options.tty ?? (stdin.isTTY === true && stdout.isTTY === true);
  // Raw mode from the start, not from Ink's first effect: keys typed while the session starts (or between the first
  // frame and that effect, on a loaded machine) would otherwise be echoed by the terminal and held until a newline,
  // and Enter would arrive as part of a line of pasted text instead of submitting it.
  const raw = tty && typeof stdin.setRawMode === 'function';
  if (raw) stdin.setRawMode(true);
  const store = new SessionStore(options.session.mode ?? 'default', options.session.model ?? '');
  const session = new Session({
    ...options.session,
    // The terminal draws calls from the pool (a past call on --continue, the permission dialog's preview, the views
    // preloaded below): every built-in is whole from the start, never a stub awaiting its module.
    eagerTools: true,
    onPermissionRequest: (request) => store.askPermission(request),
    onQuestion: (request) => store.askQuestion(request),
    // Warnings (settings, skills, MCP servers) are notices of the session, also those that come later.
    warn: (text) => store.notice(text.replace(/^warning: /, ''), 'warn'),
  });
  try {
    await session.start();
  } catch (error) {
    if (raw) stdin.setRawMode(false);
    await session.close();
    throw error;
  }
  options.onSession?.(session);
  store.setMode(session.mode);
  store.setModel(session.model);
  // The `/` menu offers the session's commands, then the skills and custom commands a person may type.
  const custom = await session.commands().catch(() => []);
  const own = new Set(SESSION_COMMANDS.map((c) => c.name));
  store.setCommands([
    ...SESSION_COMMANDS,
    ...custom.filter((c) => c.userInvocable && !own.has(c.name)).map((c) => ({ name: c.name, description: c.description || `(${c.kind})`, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}) })),
  ]);
  if (session.resumed) {
    const continued = await session.history();
    drawConversation(store, continued, (name) => session.findTool(name));
    store.notice(`Continuing session ${session.id} (${continued.length} messages).`);
  }
  const terminal = new TerminalSession({ session, store });
  const stop = new AbortController();
  const onSignal = () => {
    // A signal ends everything at once, a call that blocks interrupts too (the turn could wait on it for ever).
    terminal.interrupt();
    void session.close();
    stop.abort();
  };
  if (options.signal?.aborted) onSignal();
  options.signal?.addEventListener('abort', onSignal, { once: true });
  if (options.initialPrompt && !stop.signal.aborted) terminal.submit(options.initialPrompt);
  try {
    if (!stop.signal.aborted) {
      if (tty) await runInk(store, terminal, stdin, stdout, stop.signal);
      else await runPlain(store, terminal, stdin, stdout, stop.signal);
    }
  } finally {
    if (raw) stdin.setRawMode(false);
    options.signal?.removeEventListener('abort', onSignal);
    terminal.interrupt();
    // Leaving ends everything: closing the session also stops a call that blocks interrupts (a commit the person was
    // waiting for); every call is answered on the way, then the turn ends and its transcript is written.
    const idle = terminal.idle();
    await session.close();
    await idle;
    await terminal.ended();
  }
  return 0;
}

async function runInk(store: SessionStore, terminal: TerminalSession, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream, stop: AbortSignal): Promise<void> {
  const { session } = terminal;
  await store.preloadViews(session.tools);
  const [{ render }, { createElement }, { App }] = await Promise.all([import('ink'), import('react'), import('./app.js')]);
  const listTasks = (): BackgroundTask[] => session.tasks().filter((t) => t.status === 'running').map((t) => ({ id: t.id, label: t.description ?? t.label.slice(0, 30) }));
  // /clear and /compact start over (a new `epoch`): the terminal is cleared too, scrollback included, as claude does.
  // Subscribed before Ink so the clear is written before Ink draws the new epoch.
  let epoch = store.getSnapshot().epoch;
  const unsubscribe = store.subscribe(() => {
    const now = store.getSnapshot().epoch;
    if (now !== epoch) stdout.write('\x1b[2J\x1b[3J\x1b[H');
    epoch = now;
  });
  const instance = render(createElement(App, { store, session: terminal, cwd: session.cwd, onExit: () => {}, listTasks }), {
    stdin,
    stdout,
    exitOnCtrlC: false,
    maxFps: 60,
    patchConsole: true,
  });
  // A signal ends the session as leaving does: the turn is interrupted (its tools answered) before Ink lets go.
  const onStop = () => {
    void terminal.idle().then(() => instance.unmount());
  };
  stop.addEventListener('abort', onStop, { once: true });
  try {
    await instance.waitUntilExit();
  } finally {
    stop.removeEventListener('abort', onStop);
    unsubscribe();
  }
}

/** No terminal: each prompt line is a turn; finished items print as text; prompts that need a person are refused. */
async function runPlain(store: SessionStore, session: TerminalSession, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream, stop: AbortSignal): Promise<void> {
  store.onFinished((item) => {
    if (item.kind !== 'user') stdout.write(`${itemText(item)}\n\n`);
  });
  // Nobody can answer a dialog through a pipe: permission prompts are denied, questions declined, with the reason.
  store.subscribe(() => {
    for (const dialog of store.getSnapshot().dialogs) {
      if (dialog.kind === 'permission') dialog.resolve({ behavior: 'deny', message: 'No terminal to ask the person on; the call was refused.' });
      else dialog.resolve({ action: 'decline', message: 'No terminal to ask the person on.' });
    }
  });
  const lines = createInterface({ input: stdin, terminal: false });
  stop.addEventListener('abort', () => lines.close(), { once: true });
  for await (const line of lines) {
    if (session.submit(line) === 'exit') break;
    await session.idle();
  }
  await session.idle();
}
