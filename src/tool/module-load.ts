/**
 * A tool whose module has not loaded yet (the registry's built-ins, src/registry/lazy-tool.ts): its name, schema and
 * definition are known without the module, everything else is not. Whoever is about to run a call of a tool awaits
 * `whenToolLoaded(tool)` first (the agent's tool run, the pipeline's `runToolUse`); it is undefined for every tool that
 * is already whole, so the common path costs one property read.
 */
import type { AnyTool } from './tool.js';

/** The key under which a not-yet-loaded tool answers with the function that loads it. */
export const LOAD_TOOL_MODULE = Symbol.for('toolgate.loadToolModule');

/** The promise of the tool's module, or undefined when the tool needs nothing loaded (it is whole, or loaded). */
export function whenToolLoaded(tool: AnyTool | undefined): Promise<void> | undefined {
  const load = (tool as { [LOAD_TOOL_MODULE]?: () => Promise<void> | undefined } | undefined)?.[LOAD_TOOL_MODULE];
  return typeof load === 'function' ? load() : undefined;
}
