/**
 * Files a Read deny rule names that have more than one name (hard links). The engine knows a hard link for what it is
 * when a command it analyses names it, but the OS sandbox hides paths, not files, and a program the engine cannot see
 * into (a script) can open the other name. Found once at session start, for a warning that says what to do.
 */
import type fs from 'node:fs';
import { statSync } from './observed-fs.js';
import { formatPermissionRule } from './permission-rule.js';
import { literalDenyFiles, readDenyPatterns } from './paths.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';

export interface HardLinkedDeniedFile {
  readonly file: string;
  readonly links: number;
  readonly rule: string;
}

export function hardLinkedDeniedFiles(ctx: ToolPermissionContext): HardLinkedDeniedFile[] {
  const out = new Map<string, HardLinkedDeniedFile>();
  for (const { pattern, path: file } of literalDenyFiles(readDenyPatterns(ctx))) {
    let st: fs.Stats;
    try {
      st = statSync(file);
    } catch {
      continue;
    }
    if (st.isFile() && st.nlink > 1) out.set(file, { file, links: st.nlink, rule: formatPermissionRule(pattern.rule.ruleValue) });
  }
  return [...out.values()];
}

/** The session-start warning for each of them. */
export function hardLinkWarnings(ctx: ToolPermissionContext): string[] {
  return hardLinkedDeniedFiles(ctx).map(
    (h) =>
      `${h.file}, denied by ${h.rule}, has ${h.links} names (hard links): a program toolgate cannot analyse, or a sandboxed command, can read it ` +
      `under another name. Find the others with \`find ${ctx.cwd} -samefile ${h.file}\` and remove them, or keep the secret outside the working directories (docs/sandbox.md).`,
  );
}
