/**
 * Which language server serves a file. Configured servers (`toolgate.lsp.servers`, in the shape Claude Code's plugins
 * declare `lspServers`: `command`, `args`, `extensionToLanguage`, `env`, `initializationOptions`) come first; then the
 * built-in two — TypeScript/JavaScript through `typescript-language-server --stdio` and Python through
 * `pyright-langserver --stdio`. A command without a slash is looked for in the project's `node_modules/.bin`, then on
 * PATH (the session's environment); absent, the error says what to install.
 */
import path from 'node:path';
import { isExecutableFile } from '../shared/executable.js';

export interface LspServerConfig {
  readonly command: string;
  readonly args?: readonly string[];
  /** File extension (with its dot) → the LSP language id, e.g. `{ ".ts": "typescript" }`. */
  readonly extensionToLanguage: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly initializationOptions?: unknown;
  /** Seconds to wait for the server's `initialize` answer (default 60). */
  readonly startupTimeoutSeconds?: number;
}

/** The LSP tool's settings (`toolgate.lsp`). */
export interface LspSettings {
  /** Servers by name; a name of a built-in one (`typescript`, `python`) replaces it. */
  readonly servers?: Readonly<Record<string, LspServerConfig>>;
  /** Seconds to wait for any one request's answer (default 60). */
  readonly requestTimeoutSeconds?: number;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    readonly lsp?: LspSettings;
  }
}

export const BUILTIN_LSP_SERVERS: Readonly<Record<string, LspServerConfig & { readonly install: string }>> = {
  typescript: {
    command: 'typescript-language-server',
    args: ['--stdio'],
    extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact', '.mts': 'typescript', '.cts': 'typescript', '.js': 'javascript', '.jsx': 'javascriptreact', '.mjs': 'javascript', '.cjs': 'javascript' },
    // Its syntax-only server would answer while the project loads, with what a file alone knows (an import's local
    // name instead of the definition): the tool waits for the real answer instead.
    initializationOptions: { tsserver: { useSyntaxServer: 'never' } },
    install: 'npm install --save-dev typescript-language-server typescript',
  },
  python: {
    command: 'pyright-langserver',
    args: ['--stdio'],
    extensionToLanguage: { '.py': 'python', '.pyi': 'python' },
    install: 'npm install --save-dev pyright',
  },
};

export interface ChosenServer {
  readonly name: string;
  readonly config: LspServerConfig;
  readonly languageId: string;
  readonly install?: string;
}

/** The server for this file's extension, or undefined when none handles it. */
export function serverForFile(file: string, settings: LspSettings | undefined): ChosenServer | undefined {
  const ext = path.extname(file).toLowerCase();
  const all: Record<string, LspServerConfig & { install?: string }> = { ...BUILTIN_LSP_SERVERS, ...settings?.servers };
  // Configured servers first: a plugin's server for `.ts` wins over the built-in one.
  const names = [...Object.keys(settings?.servers ?? {}), ...Object.keys(BUILTIN_LSP_SERVERS).filter((n) => !(n in (settings?.servers ?? {})))];
  for (const name of names) {
    const config = all[name]!;
    const languageId = Object.entries(config.extensionToLanguage).find(([e]) => e.toLowerCase() === ext)?.[1];
    if (languageId !== undefined) return { name, config, languageId, ...(config.install !== undefined ? { install: config.install } : {}) };
  }
  return undefined;
}

/** Every extension some server handles, for the error about a file none does. */
export function knownExtensions(settings: LspSettings | undefined): string[] {
  const all = { ...BUILTIN_LSP_SERVERS, ...settings?.servers };
  return [...new Set(Object.values(all).flatMap((c) => Object.keys(c.extensionToLanguage)))].sort();
}

/** The executable: as given when it has a slash; else the project's node_modules/.bin, then PATH. */
export function resolveServerCommand(command: string, projectDir: string, envPath: string | undefined): string | undefined {
  if (command.includes('/')) return isExecutableFile(path.resolve(projectDir, command)) ? path.resolve(projectDir, command) : undefined;
  const local = path.join(projectDir, 'node_modules', '.bin', command);
  if (isExecutableFile(local)) return local;
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
