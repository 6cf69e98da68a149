/**
 * The session's language servers: started on first need, one per server name (for the session's project), reused
 * across calls, shut down when the runtime's task registry shuts down. A server that is gone (crashed, killed) is
 * started again once for the request that found it gone; a second failure is the request's error. Documents are
 * opened with their current text and changed (full text, next version) when the file changed since.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { secretEnvNames } from '../../execution/redaction.js';
import { randomBytes } from '../../tool/crypto.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { provideEditDiagnostics, type EditDiagnostic } from '../shared/edit-diagnostics.js';
import { getTaskRegistry } from '../shared/task-registry.js';
import { LspConnection, LspServerGoneError } from './lsp-connection.js';
import { diagnosticsDrawOnHidden } from './diagnostics-guard.js';
import { pinTsserver } from './workspace-typescript.js';
import { knownExtensions, resolveServerCommand, serverForFile, type ChosenServer } from './servers.js';

const DEFAULT_TIMEOUT_S = 60;
/** After a server's first diagnostics for an edited file, how long a second (fuller) publication is waited for. */
const SETTLE_MS = 400;

interface OpenDocument {
  version: number;
  mtimeMs: number;
  size: number;
  /** The text the server has: a name flipped to another file of the same size and time still differs here. */
  text: string;
}

/**
 * A document's text as the tool read it — opened and bound to the call's decision (opened-file.ts), never read again by
 * name here: a link flipped since would hand the server another file.
 */
export interface DocumentText {
  readonly text: string;
  readonly mtimeMs: number;
  readonly size: number;
}

interface Running {
  readonly connection: LspConnection;
  /** The server as started (what a guard asking it more questions must name). */
  readonly chosen: { readonly server: ChosenServer; readonly executable: string };
  readonly ready: Promise<void>;
  readonly documents: Map<string, OpenDocument>;
}

/** The server a file needs, resolved to an executable; an error message when there is none. */
export function locateServer(file: string, context: ToolUseContext, projectDir: string): { server: ChosenServer; executable: string } | { error: string } {
  const settings = context.options.settings;
  const server = serverForFile(file, settings.lsp);
  if (!server) return { error: `No language server handles ${path.extname(file) || 'files without an extension'} files (configured: ${knownExtensions(settings.lsp).join(' ')}). Add one under toolgate.lsp.servers.` };
  const envPath = { ...(settings.baseEnv ?? process.env), ...settings.env }.PATH;
  const executable = resolveServerCommand(server.config.command, projectDir, envPath);
  if (executable === undefined) {
    const how = server.install !== undefined ? ` Install it (${server.install}) or` : '';
    return { error: `The ${server.name} language server (${server.config.command}) is not installed here.${how} configure its command under toolgate.lsp.servers.${server.name}.` };
  }
  return { server, executable };
}

export class LspManager {
  readonly #running = new Map<string, Running>();
  readonly #diagnostics = new Map<string, unknown[]>();
  /** Who waits for a file's next diagnostics (by URI): an edit's. */
  readonly #waiting = new Map<string, Set<(diagnostics: unknown[]) => void>>();
  #closed = false;

  constructor(
    readonly projectDir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A request about `file` to its server: started (or started again once, if it is gone), the file synced first. */
  async request<T>(
    chosen: { server: ChosenServer; executable: string },
    file: string,
    document: DocumentText,
    method: string,
    params: (uri: string) => unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const running = this.#start(chosen);
      try {
        await running.ready;
        const uri = this.#sync(running, file, document, chosen.server.languageId);
        return await running.connection.request<T>(method, params(uri), options.timeoutMs ?? DEFAULT_TIMEOUT_S * 1000, options.signal);
      } catch (error) {
        if (!(error instanceof LspServerGoneError) || attempt > 0 || this.#closed) throw error instanceof LspServerGoneError ? new Error(`The ${chosen.server.name} language server failed: ${error.message}`) : error;
        // Gone: forget it and start it again, once.
        if (this.#running.get(chosen.server.name) === running) this.#running.delete(chosen.server.name);
      }
    }
  }

  /** The process id of a running server (tests end it to see the restart). */
  pidOf(name: string): number | undefined {
    return this.#running.get(name)?.connection.pid;
  }

  /** The server running under `name` as it was started, if it runs. */
  runningServer(name: string): { readonly server: ChosenServer; readonly executable: string } | undefined {
    const running = this.#running.get(name);
    return running && running.connection.gone === undefined ? running.chosen : undefined;
  }

  /** The last diagnostics a server published for a file (by absolute path). */
  diagnosticsFor(file: string): unknown[] {
    return this.#diagnostics.get(pathToFileURL(file).href) ?? [];
  }

  /**
   * After an edit: when `serverName` is running (never started for this), sends it `text` as the file's content and
   * waits for the diagnostics it publishes for the file then — the last of those that come within a short settle after
   * the first (a server may publish twice: syntax, then types) — until `deadlineMs`. Undefined: none running, or late.
   */
  async diagnosticsAfterEdit(file: string, text: string, serverName: string, languageId: string, deadlineMs: number, signal: AbortSignal): Promise<unknown[] | undefined> {
    const running = this.#running.get(serverName);
    if (running === undefined || running.connection.gone !== undefined || this.#closed) return undefined;
    const uri = pathToFileURL(file).href;
    let latest: unknown[] | undefined;
    let wake: ((d: unknown[]) => void) | undefined;
    const waiters = this.#waiting.get(uri) ?? new Set();
    this.#waiting.set(uri, waiters);
    const timers: NodeJS.Timeout[] = [];
    try {
      return await new Promise<unknown[] | undefined>((resolve) => {
        const end = () => resolve(latest);
        timers.push(setTimeout(end, deadlineMs));
        signal.addEventListener('abort', end, { once: true });
        wake = (d) => {
          const first = latest === undefined;
          latest = d;
          if (first) timers.push(setTimeout(end, SETTLE_MS));
        };
        waiters.add(wake);
        running.ready.then(
          () => this.#sync(running, file, { text, mtimeMs: -1, size: Buffer.byteLength(text) }, languageId),
          () => resolve(undefined),
        );
      });
    } finally {
      for (const t of timers) clearTimeout(t);
      if (wake !== undefined) waiters.delete(wake);
      if (waiters.size === 0) this.#waiting.delete(uri);
    }
  }

  async dispose(): Promise<void> {
    this.#closed = true;
    const all = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(all.map((r) => r.connection.dispose()));
  }

  #start(chosen: { server: ChosenServer; executable: string }): Running {
    if (this.#closed) throw new Error('The session is ending: no language server is started.');
    const known = this.#running.get(chosen.server.name);
    if (known && known.connection.gone === undefined) return known;
    const { config } = chosen.server;
    const connection = new LspConnection({ command: chosen.executable, args: config.args ?? [], cwd: this.projectDir, env: { ...this.env, ...config.env } });
    connection.onNotification('textDocument/publishDiagnostics', (p) => {
      const params = p as { uri?: string; diagnostics?: unknown[] };
      if (typeof params?.uri !== 'string') return;
      const diagnostics = Array.isArray(params.diagnostics) ? params.diagnostics : [];
      this.#diagnostics.set(params.uri, diagnostics);
      for (const wake of this.#waiting.get(params.uri) ?? []) wake(diagnostics);
    });
    const rootUri = pathToFileURL(this.projectDir).href;
    const initializationOptions = pinTsserver(chosen.executable, config.initializationOptions);
    const ready = connection
      .request(
        'initialize',
        {
          processId: process.pid,
          rootUri,
          rootPath: this.projectDir,
          workspaceFolders: [{ uri: rootUri, name: path.basename(this.projectDir) }],
          capabilities: {
            textDocument: {
              synchronization: { didSave: false, dynamicRegistration: false },
              definition: { linkSupport: true },
              implementation: { linkSupport: true },
              references: {},
              hover: { contentFormat: ['markdown', 'plaintext'] },
              documentSymbol: { hierarchicalDocumentSymbolSupport: true },
              callHierarchy: {},
              publishDiagnostics: {},
            },
            workspace: { symbol: {}, workspaceFolders: true, configuration: true },
            general: { positionEncodings: ['utf-16'] },
          },
          // typescript-language-server is held to its own TypeScript, never a workspace one (workspace-typescript.ts).
          ...(initializationOptions !== undefined ? { initializationOptions } : {}),
        },
        (config.startupTimeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000,
      )
      .then(() => connection.notify('initialized', {}));
    ready.catch(() => undefined);
    const running: Running = { chosen, connection, ready, documents: new Map() };
    this.#running.set(chosen.server.name, running);
    return running;
  }

  /** Opens the file in the server, or sends its new text when it changed since; returns its URI. */
  #sync(running: Running, file: string, document: DocumentText, languageId: string): string {
    const uri = pathToFileURL(file).href;
    const { text, mtimeMs, size } = document;
    const open = running.documents.get(uri);
    if (open && open.mtimeMs === mtimeMs && open.size === size && open.text === text) return uri;
    if (!open) {
      running.connection.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
      running.documents.set(uri, { version: 1, mtimeMs, size, text });
    } else {
      open.version++;
      open.mtimeMs = mtimeMs;
      open.size = size;
      open.text = text;
      running.connection.notify('textDocument/didChange', { textDocument: { uri, version: open.version }, contentChanges: [{ text }] });
    }
    return uri;
  }
}

const managers = new WeakMap<object, LspManager>();

/** The session's manager (per `services`), made on first use for the session's project; disposed with its registry. */
export function lspManagerFor(context: ToolUseContext): LspManager {
  let manager = managers.get(context.services);
  if (manager) return manager;
  const cwd = context.getAppState().toolPermissionContext.cwd;
  let projectDir = cwd;
  try {
    projectDir = realpathSync(cwd);
  } catch {
    // A project folder that is gone: the server's start reports it.
  }
  const settings = context.options.settings;
  // A language server gets no credentials: the names Bash scrubs are left out (settings' env is asked for by name).
  const inherited = settings.baseEnv ?? process.env;
  const secret = new Set(secretEnvNames(inherited));
  const env = Object.fromEntries(Object.entries(inherited).filter(([name]) => !secret.has(name)));
  manager = new LspManager(projectDir, { ...env, ...settings.env });
  managers.set(context.services, manager);
  const made = manager;
  // From now on an edit of a file whose server runs is followed by that server's diagnostics (edit-diagnostics.ts).
  provideEditDiagnostics(context.services, async (file, text, deadlineMs, signal) => {
    const chosen = serverForFile(file, settings.lsp);
    if (chosen === undefined) return undefined;
    const diagnostics = (await made.diagnosticsAfterEdit(file, text, chosen.name, chosen.languageId, deadlineMs, signal)) as EditDiagnostic[] | undefined;
    // A message can quote what the server read from a file the session may not read (a literal type): such a file
    // gets none, errors or not — the same silence either way, or the errors' presence would answer questions.
    if (diagnostics === undefined || diagnostics.length === 0) return diagnostics;
    const running = made.runningServer(chosen.name);
    if (running === undefined) return undefined;
    return (await diagnosticsDrawOnHidden(file, running, made, context, signal).catch(() => true)) ? undefined : diagnostics;
  });
  getTaskRegistry(context).onShutdown(`lsp-${randomBytes(4).toString('hex')}`, () => made.dispose());
  return manager;
}
