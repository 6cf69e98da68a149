/**
 * What binds an LSP call to its permission decision (docs/security.md §2): the server started is the one the decision
 * judged (`checkServer` notes it; call() never looks it up again), the document the server gets is the file opened
 * and bound like a Read, and answers name or quote only files the session may read — a language server reads what
 * it likes (every file an import names), so what it says about a denied or outside file is left out.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { checkPathPermission } from '../../permissions/paths.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { FileToolError } from '../shared/errors.js';
import { openBoundRegularFile, readWholeFile, statOrNull } from '../shared/file-kind.js';
import { readDenyFilter } from '../shared/search-path.js';
import { MAX_EDITABLE_BYTES } from '../shared/text-file.js';
import type { DocumentText } from './manager.js';
import type { ChosenServer } from './servers.js';
import { isInsideProject } from './project-path.js';

type Located = { readonly server: ChosenServer; readonly executable: string };

/** The key of a server in the call's record (`PathChecks.noteProgram`). */
export const serverRole = (server: ChosenServer): string => `lsp-server:${server.name}`;

/** Notes, at the decision, which executable the call may start for its server. */
export function noteJudgedServer(located: Located, context: ToolUseContext): void {
  context.pathChecks?.noteProgram(serverRole(located.server), located.executable);
}

/**
 * The server to start for this call: exactly the executable the decision judged. When the decision judged none (a
 * gate that is not the engine), one found inside the project is refused: it runs the repository's code, and nobody
 * said yes to it.
 */
export function judgedServer(located: Located, context: ToolUseContext): Located {
  const judged = context.pathChecks?.programOf(serverRole(located.server));
  if (judged !== undefined) return { server: located.server, executable: judged };
  if (isInsideProject(located.executable, context)) {
    throw new Error(`The ${located.server.name} language server would start from inside the project (${located.executable}), and no permission decision approved it for this call; nothing was started.`);
  }
  return located;
}

/** The document's text, read from the file opened and bound to the call's decision (a Read's binding). */
export async function readDocument(file: string, context: ToolUseContext): Promise<DocumentText> {
  const stats = await statOrNull(file);
  if (!stats) throw new FileToolError(`${file} does not exist.`, 'NOT_FOUND');
  if (!stats.isFile()) throw new FileToolError(`${file} is not a regular file.`, 'NOT_REGULAR_FILE');
  const { handle, stat } = await openBoundRegularFile(file, stats, { context, access: 'read' });
  try {
    const bytes = await readWholeFile(handle, MAX_EDITABLE_BYTES, stat.size);
    return { text: bytes.toString('utf8'), mtimeMs: stat.mtimeMs, size: stat.size };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** The folder a server's own files live in (its package tree: the library files it answers about), or undefined. */
function serverHome(executable: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    return undefined;
  }
  const parts = real.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(path.sep) : undefined;
}

/** Installed code outside the project: a package folder, or a Python's standard library. Public code, not secrets. */
const INSTALLED = /[\\/](?:node_modules|site-packages|dist-packages|typeshed[\w-]*)[\\/]|[\\/]lib[\\/]python\d+(?:\.\d+)?[\\/]/;

/**
 * Library files a hover's inference may draw on without being followed further: the server's own package files
 * (TypeScript's lib files, pyright's typeshed) and installed packages or a standard library elsewhere — unless a read
 * rule denies them. The project's own files are never libraries here (a project's `node_modules` is followed).
 */
export function libraryFilter(context: ToolUseContext, projectDir: string, executable: string): (file: string) => boolean {
  const home = serverHome(executable);
  const deny = readDenyFilter(context.getAppState().toolPermissionContext, projectDir);
  return (file) => {
    if (deny.isDenied(file)) return false;
    if (home !== undefined && file.startsWith(`${home}${path.sep}`)) return true;
    return !isInsideProject(file, context) && INSTALLED.test(file);
  };
}

/**
 * Which files an answer may name or quote: not denied by a read rule, and inside the working directories, allowed by
 * a rule on its own, or one of the server's own package files (TypeScript's lib files, a library's types).
 */
export function answerFilter(context: ToolUseContext, projectDir: string, executable: string): (file: string) => boolean {
  const ctx = context.getAppState().toolPermissionContext;
  const deny = readDenyFilter(ctx, projectDir);
  const home = serverHome(executable);
  const inside = (file: string, dir: string) => file === dir || file.startsWith(`${dir}${path.sep}`);
  const cache = new Map<string, boolean>();
  return (file) => {
    let ok = cache.get(file);
    if (ok === undefined) {
      ok = !deny.isDenied(file) && (isInsideProject(file, context) || (home !== undefined && inside(file, home)) || checkPathPermission(file, 'read', ctx).behavior === 'allow');
      cache.set(file, ok);
    }
    return ok;
  };
}

/** Hover text that could quote a file the session may not read, withheld: what the model is told instead. */
export const HOVER_WITHHELD = 'Hover withheld: the symbol here is defined in a file this session may not read (a read rule denies it, or it lies outside the working directories).';
