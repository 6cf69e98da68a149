/**
 * A tool's permission traits: what it declares (`permissionTraits`), else what its shape says (`getPath` → a file
 * tool), else `other`. The built-ins' traits are listed here as their declarations until each tool carries its own;
 * nothing in the engine or the executor compares a tool's name beyond this one table.
 */
import type { AnyTool, PermissionTraits } from '../tool/tool.js';

/** Claude Code's built-in tools, as they would declare themselves. */
export const BUILTIN_TRAITS: Readonly<Record<string, PermissionTraits>> = {
  Bash: { kind: 'shell', commandField: 'command' },
  Read: { kind: 'read', pathField: 'file_path' },
  NotebookRead: { kind: 'read', pathField: 'notebook_path' },
  LSP: { kind: 'read', pathField: 'file_path' },
  Edit: { kind: 'write', pathField: 'file_path' },
  Write: { kind: 'write', pathField: 'file_path' },
  MultiEdit: { kind: 'write', pathField: 'file_path' },
  NotebookEdit: { kind: 'write', pathField: 'notebook_path' },
  Glob: { kind: 'search', pathField: 'path', patternField: 'pattern' },
  Grep: { kind: 'search', pathField: 'path' },
  WebFetch: { kind: 'fetch', urlField: 'url' },
  WebSearch: { kind: 'fetch' },
  Agent: { kind: 'other', contentField: 'subagent_type' },
  Skill: { kind: 'other', contentField: 'skill' },
};

const OTHER: PermissionTraits = { kind: 'other' };
const FILE: PermissionTraits = { kind: 'read' };
const memo = new WeakMap<AnyTool, PermissionTraits>();

export function permissionTraitsOf(tool: AnyTool): PermissionTraits {
  const known = memo.get(tool);
  if (known !== undefined) return known;
  const declared = tool.permissionTraits;
  // An MCP tool never inherits a built-in's traits by sharing its name.
  const builtin = tool.isMcp === true || tool.mcpInfo !== undefined ? undefined : Object.hasOwn(BUILTIN_TRAITS, tool.name) ? BUILTIN_TRAITS[tool.name] : undefined;
  const traits = declared ?? builtin ?? (typeof tool.getPath === 'function' ? FILE : OTHER);
  memo.set(tool, traits);
  return traits;
}

export function isShellTool(tool: AnyTool): boolean {
  return permissionTraitsOf(tool).kind === 'shell';
}

/** Tools whose calls touch a path: read, write or search. */
export function isPathTool(tool: AnyTool): boolean {
  const kind = permissionTraitsOf(tool).kind;
  return kind === 'read' || kind === 'write' || kind === 'search' || typeof tool.getPath === 'function';
}

/** The input field holding the command of a shell tool. */
export function commandFieldOf(tool: AnyTool): string {
  return permissionTraitsOf(tool).commandField ?? 'command';
}
