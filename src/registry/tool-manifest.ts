/**
 * The build's manifest of the built-in tools' definitions (tool-manifest.generated.ts, written by
 * `npm run build` through scripts/tool-manifest.ts from the live tools; tool-manifest.test.ts fails when it no longer
 * matches them). A tool is in it only when its definition can be known without its module: enabled always (buildTool's
 * default), a Zod input schema (whose JSON the manifest holds byte for byte).
 */
import { isDeepStrictEqual } from 'node:util';
import { zodToInputJSONSchema } from '../tool/api-format.js';
import { hasDefaultIsEnabled } from '../tool/build-tool.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolManifestEntry } from './lazy-tool.js';
import { TOOL_MANIFEST_JSON } from './tool-manifest.generated.js';

/**
 * Members that are never data, whatever their value. `maxResultSizeChars` is read at a result, once the module has
 * loaded, and Bash's comes from the environment when its module loads (BASH_MAX_OUTPUT_LENGTH): the build machine's
 * value must never stand in for it (the red team); read before the load it throws, as any member the stub lacks.
 */
const NOT_DATA = new Set(['inputSchema', 'outputSchema', 'name', 'maxResultSizeChars']);

/** The tool's manifest entry, or undefined when its definition needs its module (see the file's comment). */
export function manifestEntryOf(tool: AnyTool): ToolManifestEntry | undefined {
  if (tool.inputJSONSchema !== undefined || !hasDefaultIsEnabled(tool)) return undefined;
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tool)) {
    if (NOT_DATA.has(key) || typeof value === 'function' || value === undefined) continue;
    // Only what survives JSON unchanged: anything else is read from the module, once loaded.
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) data[key] = value;
  }
  return { name: tool.name, input_schema: zodToInputJSONSchema(tool.inputSchema), keys: Object.keys(tool).sort(), data };
}

let manifest: ReadonlyMap<string, ToolManifestEntry> | undefined;

/** The build's entries, by tool name. */
export function toolManifest(): ReadonlyMap<string, ToolManifestEntry> {
  manifest ??= new Map((JSON.parse(TOOL_MANIFEST_JSON) as ToolManifestEntry[]).map((e) => [e.name, e]));
  return manifest;
}
