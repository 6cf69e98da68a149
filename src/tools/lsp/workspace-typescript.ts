/**
 * typescript-language-server runs the TypeScript it finds in the workspace (`node_modules/typescript/lib`,
 * `.yarn/sdks/typescript/lib`, … from the project folder up) in preference to its own, unless `tsserver.path` says
 * which: a server installed outside the project would still run a `tsserver.js` the repository ships, with nobody
 * asked (docs/security.md §5). So that server is pinned to the TypeScript beside it; when it has none, a workspace
 * TypeScript makes the call ask, as a server inside the project does.
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Where typescript-language-server 4–6 looks for a workspace TypeScript (its MODULE_FOLDERS). */
const WORKSPACE_TYPESCRIPT = ['node_modules/typescript/lib', '.vscode/pnpify/typescript/lib', '.yarn/sdks/typescript/lib', '.pnpm/sdks/typescript/lib'];

function realOrNull(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** The executable is typescript-language-server (by its package folder or its name). */
export function isTypescriptLanguageServer(executable: string): boolean {
  const real = realOrNull(executable) ?? executable;
  return real.split(path.sep).includes('typescript-language-server') || path.basename(executable) === 'typescript-language-server';
}

/** The tsserver.js the server would call its own (resolved from its real file, as its `bundledVersion` does). */
export function ownTsserver(executable: string): string | undefined {
  const real = realOrNull(executable);
  if (real === undefined) return undefined;
  try {
    const file = createRequire(real).resolve('typescript');
    const tsserver = path.join(path.dirname(file), 'tsserver.js');
    return existsSync(tsserver) ? tsserver : undefined;
  } catch {
    return undefined;
  }
}

/** The first workspace TypeScript the server would find from `projectDir` up, or undefined. */
export function workspaceTypescript(projectDir: string): string | undefined {
  for (let dir = projectDir; ; dir = path.dirname(dir)) {
    const found = WORKSPACE_TYPESCRIPT.map((f) => path.join(dir, f)).find((f) => existsSync(f));
    if (found !== undefined) return found;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The server's initialization options with `tsserver.path` set to its own TypeScript (a person's own choice kept). */
export function pinTsserver(executable: string, options: unknown): unknown {
  if (!isTypescriptLanguageServer(executable)) return options;
  const given = options !== null && typeof options === 'object' && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
  const tsserver = given.tsserver !== null && typeof given.tsserver === 'object' && !Array.isArray(given.tsserver) ? (given.tsserver as Record<string, unknown>) : {};
  if (typeof tsserver.path === 'string' && tsserver.path !== '') return options;
  const own = ownTsserver(executable);
  return own === undefined ? options : { ...given, tsserver: { ...tsserver, path: own } };
}

/**
 * Why this call would run a workspace TypeScript (the server has none of its own to pin), or undefined. A person's
 * own `tsserver.path` counts as their choice.
 */
export function workspaceTypescriptRisk(executable: string, options: unknown, projectDir: string): string | undefined {
  if (!isTypescriptLanguageServer(executable)) return undefined;
  const pinned = pinTsserver(executable, options) as { tsserver?: { path?: unknown } } | undefined;
  if (typeof pinned?.tsserver?.path === 'string' && pinned.tsserver.path !== '') return undefined;
  const found = workspaceTypescript(projectDir);
  return found === undefined ? undefined : `The typescript language server would run the TypeScript found at ${found} (it has none of its own): that runs code the repository supplies.`;
}
