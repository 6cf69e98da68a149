/**
 * The narrowest allow rules that cover one call — what "yes, and don't ask again" writes. Unlike the suggestions shown
 * in a prompt (prefixes such as `npm run build:*`), a grant names exactly what was approved: an exact rule per Bash
 * subcommand that needed approval, the exact file for a file tool, the host for WebFetch. Never `Bash`/`Bash(*)`.
 * An empty answer means no rule can cover the call (approve it once instead).
 */
import type { PermissionRuleValue, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { narrowestBashRules } from './bash/check-permission.js';
import { bashDeps, contentFieldOf, isFileTool, safeIsReadOnly, toolPath } from './content-check.js';
import { permissionTraitsOf } from './tool-traits.js';
import { hostOfUrl } from './domains.js';

/** A literal path as a gitignore-style pattern that matches only that path (`//abs`, glob characters escaped). */
export function exactPathPattern(abs: string): string {
  return `/${abs.replace(/[*?[\]\\!{}]/g, (c) => `\\${c}`)}`;
}

export function narrowestRules(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionRuleValue[] {
  const traits = permissionTraitsOf(tool);
  if (traits.kind === 'shell') {
    const command = input[traits.commandField ?? 'command'];
    if (typeof command !== 'string') return [];
    const contents = narrowestBashRules(command, ctx, bashDeps(ctx, tool.name)) ?? [];
    return contents.map((ruleContent) => ({ toolName: tool.name, ruleContent }));
  }
  if (isFileTool(tool)) {
    const abs = toolPath(tool, input, ctx) ?? ctx.cwd;
    const read = safeIsReadOnly(tool, input);
    // A search names a directory: its contents are what is read.
    const searches = traits.kind === 'search';
    return [{ toolName: read ? 'Read' : 'Edit', ruleContent: searches ? `${exactPathPattern(abs)}/**` : exactPathPattern(abs) }];
  }
  if (traits.kind === 'fetch') {
    if (traits.urlField === undefined) return [{ toolName: tool.name }];
    const host = hostOfUrl(input[traits.urlField]);
    return host.ok ? [{ toolName: tool.name, ruleContent: `domain:${host.host}` }] : [];
  }
  const field = contentFieldOf(tool);
  if (field !== undefined && typeof input[field] === 'string' && !/[*()]/.test(input[field] as string)) {
    return [{ toolName: tool.name, ruleContent: input[field] as string }];
  }
  return [{ toolName: tool.name }];
}
