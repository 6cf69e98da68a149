/**
 * ToolSearch: finds deferred tools and loads them. The result names the matches; its `contextModifier` adds them to
 * `options.loadedDeferredTools`, so the pipeline stops asking for a load and the next request carries their
 * definitions — as `tool_reference` blocks the API expands (models that support them) or as the schemas in text.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { getToolInputJSONSchema, modelSupportsToolReference, TOOL_SEARCH_TOOL_NAME } from '../../tool/api-format.js';
import type { AnyTool, ToolResultBlockParam } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { getToolSearchIndex, parseQuery, searchIndex } from './search-index.js';
import { TOOL_SEARCH_DEFAULT_MAX_RESULTS, toolSearchPrompt } from './prompt.js';

export { deferredToolsAnnouncement } from './prompt.js';
export { TOOL_SEARCH_TOOL_NAME };

export const toolSearchInputSchema = z.strictObject({
  query: z.string().describe('"select:Name1,Name2" to load tools by name, or keywords to search ("+word" must be in the name)'),
  max_results: z.number().int().min(1).max(50).optional().describe('How many matches to return at most (default 5)'),
});
export type ToolSearchInput = z.infer<typeof toolSearchInputSchema>;

export interface ToolSearchOutput {
  matches: string[];
  query: string;
  total_deferred_tools: number;
  /** Names asked for with `select:` that are not deferred tools of this pool. */
  not_found?: string[];
  /** How the result reaches the model: `tool_reference` blocks, or the schemas as `<functions>` text. */
  delivery: 'reference' | 'text';
  /** The `<functions>` block (text delivery only). */
  functions?: string;
}

function describeFor(context: ToolUseContext): (tool: AnyTool) => Promise<string> {
  return (tool) =>
    tool.prompt({
      getToolPermissionContext: () => context.getAppState().toolPermissionContext,
      tools: context.options.tools,
      model: context.options.mainLoopModel,
    });
}

async function functionsBlock(names: readonly string[], context: ToolUseContext): Promise<string> {
  const describe = describeFor(context);
  const lines: string[] = [];
  for (const name of names) {
    const tool = context.options.tools.find((t) => t.name === name);
    if (!tool) continue;
    const definition = { description: await describe(tool), name: tool.name, parameters: getToolInputJSONSchema(tool) };
    lines.push(`<function>${JSON.stringify(definition)}</function>`);
  }
  return `<functions>\n${lines.join('\n')}\n</functions>`;
}

export const ToolSearchTool = buildTool<typeof toolSearchInputSchema, ToolSearchOutput>({
  name: TOOL_SEARCH_TOOL_NAME,
  asyncSafe: true,
  inputSchema: toolSearchInputSchema,
  maxResultSizeChars: 100_000,
  alwaysLoad: true,
  prompt: async () => toolSearchPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  // Loading a schema reaches nothing outside the process: no permission question to ask.
  checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
  toAutoClassifierInput: () => '',

  async call(input, context) {
    const tools = context.options.tools;
    const index = await getToolSearchIndex(tools, describeFor(context));
    const parsed = parseQuery(input.query);
    const matches = searchIndex(index, parsed, input.max_results ?? TOOL_SEARCH_DEFAULT_MAX_RESULTS);
    const notFound = parsed.select?.filter((n) => !matches.some((m) => m.toLowerCase() === n.toLowerCase()));
    const delivery = modelSupportsToolReference(context.options.mainLoopModel) ? 'reference' : 'text';
    const data: ToolSearchOutput = {
      matches,
      query: input.query,
      total_deferred_tools: index.tools.length,
      ...(notFound && notFound.length > 0 ? { not_found: notFound } : {}),
      delivery,
      ...(delivery === 'text' && matches.length > 0 ? { functions: await functionsBlock(matches, context) } : {}),
    };
    return {
      data,
      contextModifier:
        matches.length === 0
          ? undefined
          : (ctx) => {
              const loaded = new Set(ctx.options.loadedDeferredTools ?? []);
              for (const name of matches) loaded.add(name);
              return { ...ctx, options: { ...ctx.options, loadedDeferredTools: loaded } };
            },
    };
  },

  mapToolResultToToolResultBlockParam(data, toolUseId): ToolResultBlockParam {
    const missing = data.not_found?.length ? `\nNot deferred tools here (check the name): ${data.not_found.join(', ')}` : '';
    if (data.matches.length === 0) {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: `No deferred tool matches "${data.query}" (${data.total_deferred_tools} deferred tools).${missing}`,
      };
    }
    if (data.delivery === 'reference') {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: [
          ...data.matches.map((name) => ({ type: 'tool_reference' as const, tool_name: name })),
          ...(missing ? [{ type: 'text' as const, text: missing.trim() }] : []),
        ],
      };
    }
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: `Loaded ${data.matches.length} tool${data.matches.length === 1 ? '' : 's'}; they can be called from your next reply on.\n${data.functions ?? ''}${missing}`,
    };
  },
  renderToolUseMessage: (input) => String(input.query ?? ''),
  renderToolResultMessage: (data) => (data.matches.length > 0 ? `Loaded ${data.matches.join(', ')}` : 'No matches'),
  loadViews: () => import('./render.js').then((m) => m.toolSearchViews),
});
