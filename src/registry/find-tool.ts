import type { AnyTool, Tools } from '../tool/tool.js';

/** Looks a tool up by its name, then by its aliases (old transcripts say `Task` for `Agent`). */
export function findToolByName(tools: Tools, name: string): AnyTool | undefined {
  return tools.find((t) => t.name === name) ?? tools.find((t) => t.aliases?.includes(name) === true);
}

export function toolMatchesName(tool: AnyTool, name: string): boolean {
  return tool.name === name || tool.aliases?.includes(name) === true;
}
