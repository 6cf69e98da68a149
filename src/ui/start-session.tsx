/**
 * Starts an interactive session: a runtime whose permission prompts and questions go to the person, the Ink app on
 * a terminal — or, without one, the same session printed as plain text with prompts read line by line from stdin.
 * Returns the exit code once the person leaves; every turn is interrupted and the runtime disposed on the way out.
 */
import { createInterface } from 'node:readline';
import { listSlashCommands } from '../agent/slash-commands.js';
import type { ToolRuntime, ToolRuntimeOptions } from '../agent/types.js';
import type { MessageParam } from '../tool/tool.js';
import type { BackgroundTask } from './session-store.js';
import { SessionStore } from './session-store.js';
import { Session, SESSION_COMMANDS, type CompactFn, type McpSessionControl, type RunQuery } from './session.js';
import { drawConversation } from './draw-conversation.js';
import { itemText } from './plain-text.js';

/** The runtime, the loop and the terminal an interactive session runs with. */
export interface InteractiveOptions {
  readonly createRuntime: (options: ToolRuntimeOptions) => Promise<ToolRuntime>;
  /** Runtime options besides the handlers this function adds (cwd, settings, mode, rules…). */
  readonly runtimeOptions: ToolRuntimeOptions;
  /** One turn of the agent loop over this runtime (`query()`). */
  readonly runQuery: (runtime: ToolRuntime) => RunQuery;
  readonly model: string;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  /** Draw with Ink (default: when stdin and stdout are terminals). */
  readonly tty?: boolean;
  /** The conversation the runtime's transcript holds (`--continue`): shown, and the first turn goes on from it. */
  readonly continued?: readonly MessageParam[];
  /** Ends the session as the person leaving would (a termination signal): the turn is interrupted, tools answered. */
  readonly signal?: AbortSignal;
  /** `/compact`: the conversation summarised by a model call (agent/compact.ts over the session's client). */
  readonly compact?: (runtime: ToolRuntime) => CompactFn;
  /** Sent as the first message once the session is up (`toolgate "PROMPT"`), as if typed. */
  readonly initialPrompt?: string;
  /** The MCP servers (`/mcp`); `bindNotices` receives where their warnings go once the session can show them. */
  readonly mcp?: { readonly control: McpSessionControl; readonly bindNotices?: (notice: (text: string) => void) => void };
}

/** `NO_COLOR` (any non-empty value) turns colour off before chalk decides its level at import. */
function honourNoColor(): void {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') process.env.FORCE_COLOR = '0';
}

/** The interactive terminal session (`toolgate` with no arguments) over your runtime and loop; resolves to the exit code. */
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
  const store = new SessionStore(options.runtimeOptions.mode ?? 'default', options.model);
  options.mcp?.bindNotices?.((text) => store.notice(text, 'warn'));
  const runtime = await options
    .createRuntime({
      ...options.runtimeOptions,
      model: options.model,
      onPermissionRequest: (request) => store.askPermission(request),
      onQuestion: (request) => store.askQuestion(request),
      // "Don't ask again" answers are written by the runtime's one grant writer (settings/grants.ts).
    })
    .catch((error: unknown) => {
      if (raw) stdin.setRawMode(false);
      throw error;
    });
  store.setMode(runtime.permissionContext.mode);
  // Skills' and commands' frontmatter is read now (their problems are warnings to show with the settings'); the `/`
  // menu offers the session's commands, then those a person may type.
  const custom = await listSlashCommands(runtime).catch(() => []);
  const own = new Set(SESSION_COMMANDS.map((c) => c.name));
  store.setCommands([
    ...SESSION_COMMANDS,
    ...custom.filter((c) => c.userInvocable && !own.has(c.name)).map((c) => ({ name: c.name, description: c.description || `(${c.kind})`, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}) })),
  ]);
  for (const warning of runtime.warnings ?? []) store.notice(warning, 'warn');
  if (options.continued) {
    drawConversation(store, options.continued, (name) => runtime.findTool(name));
    store.notice(`Continuing session ${runtime.sessionId} (${options.continued.length} messages).`);
  }
  const session = new Session({
    runtime,
    store,
    runQuery: options.runQuery(runtime),
    model: options.model,
    ...(options.continued ? { continued: options.continued } : {}),
    ...(options.mcp ? { mcp: options.mcp.control } : {}),
    ...(options.compact ? { compact: options.compact(runtime) } : {}),
  });
  const stop = new AbortController();
  const onSignal = () => {
    session.interrupt();
    // A signal ends everything at once, a call that blocks interrupts too (the turn could wait on it for ever).
    void runtime.dispose().catch(() => undefined);
    stop.abort();
  };
  if (options.signal?.aborted) onSignal();
  options.signal?.addEventListener('abort', onSignal, { once: true });
  if (options.initialPrompt && !stop.signal.aborted) session.submit(options.initialPrompt);
  try {
    if (!stop.signal.aborted) {
      if (tty) await runInk(store, session, runtime, stdin, stdout, stop.signal);
      else await runPlain(store, session, stdin, stdout, stop.signal);
    }
  } finally {
    if (raw) stdin.setRawMode(false);
    options.signal?.removeEventListener('abort', onSignal);
    session.interrupt();
    // Leaving ends everything: dispose() also stops a call that blocks interrupts (a commit the person was waiting
    // for); every call is answered on the way, then the turn ends and its transcript is written.
    const idle = session.idle();
    await runtime.dispose();
    await idle;
  }
  return 0;
}

async function runInk(
  store: SessionStore,
  session: Session,
  runtime: ToolRuntime,
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  stop: AbortSignal,
): Promise<void> {
  await store.preloadViews(runtime.tools);
  const [{ render }, { createElement }, { App }] = await Promise.all([import('ink'), import('react'), import('./app.js')]);
  const listTasks = (): BackgroundTask[] => {
    const registry = runtime.context.services.tasks;
    return (registry?.list() ?? []).filter((t) => t.status === 'running').map((t) => ({ id: t.id, label: t.description ?? t.label.slice(0, 30) }));
  };
  // /clear and /compact start over (a new `epoch`): the terminal is cleared too, scrollback included, as claude does.
  // Subscribed before Ink so the clear is written before Ink draws the new epoch.
  let epoch = store.getSnapshot().epoch;
  const unsubscribe = store.subscribe(() => {
    const now = store.getSnapshot().epoch;
    if (now !== epoch) stdout.write('\x1b[2J\x1b[3J\x1b[H');
    epoch = now;
  });
  const instance = render(createElement(App, { store, session, cwd: runtime.cwd, onExit: () => {}, listTasks }), {
    stdin,
    stdout,
    exitOnCtrlC: false,
    maxFps: 60,
    patchConsole: true,
  });
  // A signal ends the session as leaving does: the turn is interrupted (its tools answered) before Ink lets go.
  const onStop = () => {
    void session.idle().then(() => instance.unmount());
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
async function runPlain(store: SessionStore, session: Session, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream, stop: AbortSignal): Promise<void> {
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
