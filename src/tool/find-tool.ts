/**
 * The one way to find a tool by name: its name first, then its aliases (old transcripts say `Task` for `Agent`,
 * `KillShell` for `TaskStop`). In the tool layer because every layer above looks tools up — the pipeline, the
 * executor, the registry, the runtime, the CLI.
 */
import type { AnyTool, Tools } from './tool.js';

/** Looks a tool up by its name, then by its aliases; a real name always beats another tool's alias. */
export function findToolByName(tools: Tools, name: string): AnyTool | undefined {
  for (const tool of tools) if (tool.name === name) return tool;
  for (const tool of tools) if (tool.aliases?.includes(name) === true) return tool;
  return undefined;
}

export function toolMatchesName(tool: AnyTool, name: string): boolean {
  return tool.name === name || tool.aliases?.includes(name) === true;
}
