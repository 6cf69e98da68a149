/** Whether a path lies inside the session's working directories (the project and any added ones). */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { ToolUseContext } from '../../tool/tool-use-context.js';

export function isInsideProject(file: string, context: ToolUseContext): boolean {
  const ctx = context.getAppState().toolPermissionContext;
  const roots = [ctx.cwd, ...[...ctx.additionalWorkingDirectories.values()].map((d) => d.path)];
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const candidates = [file, real(file)];
  return roots.some((root) => candidates.some((c) => {
    for (const r of [root, real(root)]) {
      const rel = path.relative(r, c);
      if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return true;
    }
    return false;
  }));
}
