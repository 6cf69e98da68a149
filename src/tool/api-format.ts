/**
 * Tools as the Anthropic API sees them: `toolToAPI()` turns a Tool into the SDK's tool definition (name, the
 * description from the tool's prompt, the input JSON Schema, and the optional strict / input_examples /
 * defer_loading fields).
 */
import * as z from 'zod';
import type { ToolPermissionContext } from './permission-types.js';
import type { ToolSettings } from './tool-use-context.js';
import { toStrictSchema, type StrictSchemaResult } from './strict-schema.js';
import type { AnyObject, AnyTool, APIToolDefinition, PromptOptions, ToolInputJSONSchema, Tools } from './tool.js';

/** The beta under which the API accepts `input_examples` (and tool search). */
export const INPUT_EXAMPLES_BETA = 'advanced-tool-use-2025-11-20';
export const TOOL_SEARCH_TOOL_NAME = 'ToolSearch';

export interface ToolToAPIOptions {
  readonly getToolPermissionContext: () => ToolPermissionContext;
  /** The whole pool: prompts may mention other tools, and deferral needs ToolSearch to be in it. */
  readonly tools: Tools;
  readonly model?: string;
  readonly betas?: readonly string[];
  /** Handed to each tool's prompt (`PromptOptions.settings`). */
  readonly settings?: ToolSettings;
  /** Off switch for strict schemas (on by default where tool and model support them). */
  readonly strictTools?: boolean;
  /** How deferred tools go out (default: `reference` — all of them with `defer_loading: true`). */
  readonly deferredLoading?: DeferredLoadingOptions;
  /** The session's services, passed to each tool's `prompt()`. */
  readonly services?: PromptOptions['services'];
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

const strictCache = new WeakMap<ToolInputJSONSchema, StrictSchemaResult>();

/** The schema in strict mode's subset, memoised per schema object (the definitions must be byte-identical per turn). */
export function strictInputSchema(schema: ToolInputJSONSchema): StrictSchemaResult {
  let cached = strictCache.get(schema);
  if (!cached) {
    cached = toStrictSchema(schema as Record<string, unknown>);
    strictCache.set(schema, cached);
  }
  return cached;
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
 * never load it); `alwaysLoad` wins; tools that ask for it are deferred, and MCP tools unless the registry decided
 * they are small enough to load up front (it then sets `shouldDefer: false` on them).
 */
export function isDeferredTool(tool: AnyTool, tools: Tools): boolean {
  return asksToBeDeferred(tool) && tools.some((t) => t.name === TOOL_SEARCH_TOOL_NAME);
}

/** The tool's own half of isDeferredTool(); the pool's half is whether ToolSearch is in it. */
function asksToBeDeferred(tool: AnyTool): boolean {
  if (tool.alwaysLoad === true || tool.name === TOOL_SEARCH_TOOL_NAME) return false;
  return tool.shouldDefer === true || (tool.isMcp === true && tool.shouldDefer !== false);
}

/**
 * Models that resolve `tool_reference` blocks (the API side of tool search): Claude 4.5-generation Sonnet and Opus
 * and later. Others get the loaded schemas as text in the ToolSearch result and the loaded tools in full.
 */
export function modelSupportsToolReference(model: string | undefined): boolean {
  if (!model) return false;
  const m = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2}))?(?!\d)/.exec(model);
  if (!m) return false;
  const major = Number(m[2]);
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  if (m[1] === 'haiku') return false;
  return major > 4 || (major === 4 && minor >= 5);
}

/**
 * How deferred tools reach a request:
 * - `reference`: every deferred tool with `defer_loading: true`; a ToolSearch result names the loaded ones with
 *   `tool_reference` blocks and the API expands them (the list never changes, the prompt cache holds);
 * - `text`: a deferred tool is left out until it is loaded, then sent in full (the model saw its schema as text).
 */
export interface DeferredLoadingOptions {
  readonly mode: 'reference' | 'text';
  /** `context.options.loadedDeferredTools`. */
  readonly loaded?: ReadonlySet<string>;
}

export function deferredLoadingFor(model: string | undefined, loaded?: ReadonlySet<string>): DeferredLoadingOptions {
  return { mode: modelSupportsToolReference(model) ? 'reference' : 'text', loaded };
}

/** The deferred tools of a pool, by name, in pool order. */
export function deferredToolNames(tools: Tools): string[] {
  // The pool's half asked once, not once per tool.
  if (!tools.some((t) => t.name === TOOL_SEARCH_TOOL_NAME)) return [];
  return tools.filter(asksToBeDeferred).map((t) => t.name);
}

export async function toolToAPI(tool: AnyTool, options: ToolToAPIOptions): Promise<APIToolDefinition> {
  const definition: APIToolDefinition = {
    name: tool.name,
    description: await tool.prompt({
      getToolPermissionContext: options.getToolPermissionContext,
      tools: options.tools,
      model: options.model,
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
      ...(options.services !== undefined ? { services: options.services } : {}),
    }),
    input_schema: getToolInputJSONSchema(tool) as APIToolDefinition['input_schema'],
  };
  if (tool.strict === true && options.strictTools !== false && modelSupportsStrictTools(options.model)) {
    // The API rejects a strict tool whose schema leaves strict mode's subset; one that cannot be expressed in it goes
    // out without `strict` (validated by Zod as every other tool) rather than not at all.
    const strict = strictInputSchema(definition.input_schema as ToolInputJSONSchema);
    if (strict.ok) {
      definition.input_schema = strict.schema as APIToolDefinition['input_schema'];
      definition.strict = true;
    }
  }
  if (tool.inputExamples && tool.inputExamples.length > 0 && options.betas?.includes(INPUT_EXAMPLES_BETA)) {
    definition.input_examples = tool.inputExamples.map((example) => ({ ...example }));
  }
  if (isDeferredTool(tool, options.tools) && options.deferredLoading?.mode !== 'text') definition.defer_loading = true;
  return definition;
}

/**
 * The whole pool, in pool order (which the registry keeps stable for the prompt cache). In `text` mode the deferred
 * tools not loaded yet are left out: the model knows them by name only and loads them through ToolSearch.
 */
export function toolsToAPI(tools: Tools, options: Omit<ToolToAPIOptions, 'tools'>): Promise<APIToolDefinition[]> {
  const text = options.deferredLoading?.mode === 'text';
  const sent = text
    ? tools.filter((tool) => !isDeferredTool(tool, tools) || options.deferredLoading?.loaded?.has(tool.name) === true)
    : tools;
  return Promise.all(sent.map((tool) => toolToAPI(tool, { ...options, tools })));
}
