/**
 * `buildTool(def)`: the only way tools are made. It spreads fail-closed defaults under the definition, so a tool that
 * forgets a flag gets the safe behaviour: not concurrency-safe (runs alone), not read-only (treated as a write), no
 * classifier input (the general engine decides). `checkPermissions` defaults to allow-unchanged, which means "no
 * tool-specific objection" — rules, modes and prompts still decide around it.
 */
import * as z from 'zod';
import { defaultMapToolResult, safeJson } from './tool-result.js';
import type { AnyObject, Tool, ToolInputJSONSchema, ToolProgressData } from './tool.js';

/** Members `buildTool` fills when the definition leaves them out. */
export type DefaultableToolKeys =
  | 'isEnabled'
  | 'isConcurrencySafe'
  | 'isReadOnly'
  | 'isDestructive'
  | 'checkPermissions'
  | 'toAutoClassifierInput'
  | 'userFacingName'
  | 'mapToolResultToToolResultBlockParam'
  | 'renderToolUseMessage';

/** A tool definition: every member of `Tool` is required except the defaultable ones (and the optional ones). */
export type ToolDef<Input extends AnyObject, Output, P extends ToolProgressData = ToolProgressData> = Omit<
  Tool<Input, Output, P>,
  DefaultableToolKeys
> &
  Partial<Pick<Tool<Input, Output, P>, DefaultableToolKeys>>;

/** The input schema an MCP-style tool gets when it only brings a JSON Schema: any object passes. */
export const passthroughInputSchema = z.looseObject({});
export type PassthroughInputSchema = typeof passthroughInputSchema;

/** A definition that brings only a JSON Schema (MCP tools): validation of the fields is the server's job. */
export type JSONSchemaToolDef<Output, P extends ToolProgressData = ToolProgressData> = Omit<
  ToolDef<PassthroughInputSchema, Output, P>,
  'inputSchema' | 'inputJSONSchema'
> & { inputSchema?: undefined; inputJSONSchema: ToolInputJSONSchema };

/** `buildTool` was given a definition it cannot make a tool of (a missing or wrong member, named in the message). */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

const TOOL_DEFAULTS = {
  isEnabled: () => true,
  isConcurrencySafe: (_input?: unknown) => false,
  isReadOnly: (_input?: unknown) => false,
  isDestructive: (_input?: unknown) => false,
  checkPermissions: (input: Record<string, unknown>) => Promise.resolve({ behavior: 'allow' as const, updatedInput: input }),
  toAutoClassifierInput: (_input?: unknown) => '',
  mapToolResultToToolResultBlockParam: defaultMapToolResult,
  renderToolUseMessage: (input: unknown) => truncate(safeJson(input).replace(/\s+/g, ' '), 200),
};

/** Whether the tool's `isEnabled` is buildTool's default (always true): the registry's manifest relies on it. */
export function hasDefaultIsEnabled(tool: { readonly isEnabled: () => boolean }): boolean {
  return tool.isEnabled === TOOL_DEFAULTS.isEnabled;
}

/**
 * Makes a tool from a definition, with fail-closed defaults for what it leaves out: not concurrency-safe, not read-only,
 * no objection of its own in `checkPermissions` (the engine still decides), enabled.
 */
export function buildTool<Input extends AnyObject, Output, P extends ToolProgressData = ToolProgressData>(
  def: ToolDef<Input, Output, P>,
): Tool<Input, Output, P>;
export function buildTool<Output, P extends ToolProgressData = ToolProgressData>(
  def: JSONSchemaToolDef<Output, P>,
): Tool<PassthroughInputSchema, Output, P>;
export function buildTool(def: ToolDef<AnyObject, unknown> | JSONSchemaToolDef<unknown>): Tool<AnyObject, unknown> {
  assertDefinition(def as unknown as Record<string, unknown>);
  const name = def.name;
  return {
    ...TOOL_DEFAULTS,
    userFacingName: () => name,
    ...def,
    inputSchema: def.inputSchema ?? passthroughInputSchema,
  } as Tool<AnyObject, unknown>;
}

/** The run-time half of the guarantee the types give: a definition missing a required member fails loudly, by name. */
function assertDefinition(def: Record<string, unknown>): void {
  const label = typeof def.name === 'string' && def.name.length > 0 ? `tool "${def.name}"` : 'a tool definition';
  const missing = (member: string, what: string): never => {
    throw new ToolDefinitionError(`buildTool: ${label} is missing required member "${member}" (${what})`);
  };
  if (def === null || typeof def !== 'object') throw new ToolDefinitionError('buildTool: the definition must be an object');
  if (typeof def.name !== 'string' || def.name.length === 0) missing('name', 'a non-empty string');
  if (!/^[a-zA-Z0-9_-]{1,128}$/.test(def.name as string)) {
    throw new ToolDefinitionError(`buildTool: ${label} has an invalid name: the API accepts [a-zA-Z0-9_-]{1,128}`);
  }
  if (def.inputSchema === undefined && def.inputJSONSchema === undefined) missing('inputSchema', 'a Zod object schema, or inputJSONSchema');
  if (def.inputSchema !== undefined && !(def.inputSchema instanceof z.ZodObject)) {
    throw new ToolDefinitionError(`buildTool: ${label} has an inputSchema that is not a Zod object schema`);
  }
  if (def.inputJSONSchema !== undefined && (def.inputJSONSchema as { type?: unknown }).type !== 'object') {
    throw new ToolDefinitionError(`buildTool: ${label} has an inputJSONSchema whose root is not {"type": "object"}`);
  }
  if (typeof def.call !== 'function') missing('call', 'a function');
  if (typeof def.prompt !== 'function') missing('prompt', 'an async function returning the description the model reads');
  if (typeof def.maxResultSizeChars !== 'number' || Number.isNaN(def.maxResultSizeChars) || def.maxResultSizeChars <= 0) {
    missing('maxResultSizeChars', 'a positive number, or Infinity for tools that bound their own output');
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
