/**
 * Diagnostics after an edit quote what the server inferred, like a hover: writing `const n: 'guess' = TOKEN` where TOKEN
 * comes from a Read-denied file makes TypeScript answer "Type '"<the secret>"' is not assignable to type '"guess"'".
 * So the edited file's closure is followed as a hover's is (hover-guard.ts: its imports, resolved by the server, up
 * to the bound), and a closure that reaches a file the session may not read gets no diagnostics (docs/security.md §2).
 */
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { answerFilter, libraryFilter } from './bound.js';
import { guardDeps, hoverDrawsOnHidden, type GuardRequest } from './hover-guard.js';
import type { LspManager } from './manager.js';
import type { ChosenServer } from './servers.js';

/** True when the diagnostics of the edited `file` must be withheld. */
export function diagnosticsDrawOnHidden(
  file: string,
  running: { readonly server: ChosenServer; readonly executable: string },
  manager: LspManager,
  context: ToolUseContext,
  signal: AbortSignal,
): Promise<boolean> {
  const keep = answerFilter(context, manager.projectDir, running.executable);
  const req: GuardRequest = <T>(method: string, params: (uri: string) => unknown, target?: Parameters<GuardRequest>[2]) => {
    // Every question of the guard is about a file it names (definitionsAt); one without would ask about nothing.
    if (target === undefined) return Promise.reject(new Error('the guard asks only about a named file'));
    return manager.request<T>({ ...running, server: { ...running.server, languageId: target.languageId } }, target.file, target.document, method, params, { signal });
  };
  return hoverDrawsOnHidden([file], guardDeps(running, keep, libraryFilter(context, manager.projectDir, running.executable), req));
}
