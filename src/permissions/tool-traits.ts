/**
 * A tool's permission traits, as the engine, the executor and the faces read them: what the tool declares
 * (`permissionTraits` — every built-in that has a kind, a path, a command, a URL or a content field declares its own
 * in its folder), else what its shape says (`getPath` → a file tool, read: the cautious reading), else `other`, which
 * only whole-tool rules cover. A tool is never judged by its name: one named Bash that declares nothing is `other`.
 * The one table of Claude Code's tool names below is data for stand-ins (`toolgate check` describing a documented tool
 * this process does not have), not a lookup the engine makes.
 */
import type { AnyTool, PermissionTraits } from '../tool/tool.js';

/**
 * Claude Code's documented tools, as they declare themselves. Data, not a lookup the engine makes: the engine reads
 * only what a tool declares (`permissionTraits`, `getPath`), so a tool is never judged by its name. Stand-ins that
 * describe a documented tool without being it (`toolgate check` for a tool this process does not have) take their
 * traits from here.
 */
export const CLAUDE_CODE_TOOL_TRAITS: Readonly<Record<string, PermissionTraits>> = {
  Bash: { kind: 'shell', commandField: 'command' },
  Read: { kind: 'read', pathField: 'file_path' },
  NotebookRead: { kind: 'read', pathField: 'notebook_path' },
  LSP: { kind: 'read', pathField: 'filePath' },
  Monitor: { kind: 'shell', commandField: 'command', alsoDeniedAs: 'Bash' },
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
  // Undeclared: a tool that names its path is a file tool (read, the cautious reading); anything else is 'other',
  // whose calls only whole-tool rules cover. Sharing a built-in's name gives a tool none of its traits.
  const traits = tool.permissionTraits ?? (typeof tool.getPath === 'function' ? FILE : OTHER);
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
