/**
 * Tools as the Anthropic API sees them: `toolToAPI()` turns a Tool into the SDK's tool definition (name, the
 * description from the tool's prompt, the input JSON Schema, and the optional strict / input_examples /
 * defer_loading fields).
 */
import { z } from 'zod';
import type { ToolPermissionContext } from './permission-types.js';
import type { AnyObject, AnyTool, APIToolDefinition, ToolInputJSONSchema, Tools } from './tool.js';

/** The beta under which the API accepts `input_examples` (and tool search). */
export const INPUT_EXAMPLES_BETA = 'advanced-tool-use-2025-11-20';
export const TOOL_SEARCH_TOOL_NAME = 'ToolSearch';

export interface ToolToAPIOptions {
  readonly getToolPermissionContext: () => ToolPermissionContext;
  /** The whole pool: prompts may mention other tools, and deferral needs ToolSearch to be in it. */
  readonly tools: Tools;
  readonly model?: string;
  readonly betas?: readonly string[];
  /** Off switch for strict schemas (on by default where tool and model support them). */
  readonly strictTools?: boolean;
}

const schemaCache = new WeakMap<AnyObject, ToolInputJSONSchema>();

/**
 * The input JSON Schema of a Zod object schema, as the model should fill it in: input types (`io: 'input'`, so
 * fields with defaults are optional), an object root, and no `$schema` key (the API does not want it). Memoised per
 * schema object: tool schemas are module constants, converting them on every request would be waste.
 */
export function zodToInputJSONSchema(schema: AnyObject): ToolInputJSONSchema {
  const cached = schemaCache.get(schema);
  if (cached) return cached;
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  if (rest.type !== 'object') throw new Error(`input schema must have an object root, got ${String(rest.type)}`);
  const json = rest as ToolInputJSONSchema;
  schemaCache.set(schema, json);
  return json;
}

/** The schema sent for a tool: its JSON Schema as given (MCP), else converted from Zod. */
export function getToolInputJSONSchema(tool: AnyTool): ToolInputJSONSchema {
  return tool.inputJSONSchema ?? zodToInputJSONSchema(tool.inputSchema);
}

/**
 * Models that honour `strict: true` on tools (structured outputs). Claude 4.5-generation models and later, and
 * Opus 4.1; anything not recognisably one of those gets no `strict` (the API would reject the request).
 */
export function modelSupportsStrictTools(model: string | undefined): boolean {
  if (!model) return false;
  const m = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2}))?(?!\d)/.exec(model);
  if (!m) return false;
  const major = Number(m[2]);
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  if (major > 4) return true;
  if (major < 4) return false;
  if (m[1] === 'opus') return minor >= 1;
  return minor >= 5;
}

/**
 * Whether a tool goes out with `defer_loading: true`. Only when ToolSearch is in the pool (otherwise the model could
 * never load it); `alwaysLoad` wins; tools that ask for it and MCP tools are deferred.
 */
export function isDeferredTool(tool: AnyTool, tools: Tools): boolean {
  if (tool.alwaysLoad === true || tool.name === TOOL_SEARCH_TOOL_NAME) return false;
  if (!(tool.shouldDefer === true || tool.isMcp === true)) return false;
  return tools.some((t) => t.name === TOOL_SEARCH_TOOL_NAME);
}

export async function toolToAPI(tool: AnyTool, options: ToolToAPIOptions): Promise<APIToolDefinition> {
  const definition: APIToolDefinition = {
    name: tool.name,
    description: await tool.prompt({
      getToolPermissionContext: options.getToolPermissionContext,
      tools: options.tools,
      model: options.model,
    }),
    input_schema: getToolInputJSONSchema(tool) as APIToolDefinition['input_schema'],
  };
  if (tool.strict === true && options.strictTools !== false && modelSupportsStrictTools(options.model)) {
    definition.strict = true;
  }
  if (tool.inputExamples && tool.inputExamples.length > 0 && options.betas?.includes(INPUT_EXAMPLES_BETA)) {
    definition.input_examples = tool.inputExamples.map((example) => ({ ...example }));
  }
  if (isDeferredTool(tool, options.tools)) definition.defer_loading = true;
  return definition;
}

/** The whole pool, in pool order (which the registry keeps stable for the prompt cache). */
export function toolsToAPI(tools: Tools, options: Omit<ToolToAPIOptions, 'tools'>): Promise<APIToolDefinition[]> {
  return Promise.all(tools.map((tool) => toolToAPI(tool, { ...options, tools })));
}
