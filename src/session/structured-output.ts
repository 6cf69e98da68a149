/**
 * Structured output (`SessionOptions.outputSchema`; the Agent SDK's `outputFormat`, the CLI's `--json-schema`), done the way Claude Code does it: the
 * session gets one more tool, `StructuredOutput`, whose input schema is the requested schema. The model gives its
 * answer by calling it; a call whose input does not match the schema is refused with what is wrong, and a successful
 * one ends the turn (the loop's `structuredOutput` option), its input becoming the result's `structured_output`.
 */
import * as z from 'zod';
import { buildTool } from '../tool/build-tool.js';
import type { AnyTool, ToolInputJSONSchema } from '../tool/tool.js';
import { SessionOptionError } from './options.js';

export const STRUCTURED_OUTPUT_TOOL_NAME = 'StructuredOutput';

/** The tool for one session's schema; throws `SessionOptionError` when the schema cannot be used. */
export function structuredOutputTool(schema: Record<string, unknown>): AnyTool {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new SessionOptionError('the output schema must be a JSON Schema object');
  if (schema.type !== undefined && schema.type !== 'object') throw new SessionOptionError('the output schema must describe an object ({"type": "object", …})');
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new SessionOptionError(`the output schema cannot be used: ${error instanceof Error ? error.message : String(error)}`);
  }
  return buildTool({
    name: STRUCTURED_OUTPUT_TOOL_NAME,
    inputJSONSchema: { ...schema, type: 'object' } as ToolInputJSONSchema,
    maxResultSizeChars: 10_000,
    alwaysLoad: true,
    prompt: async () => 'Give your final answer with this tool, in the required format: call it exactly once, when you are done.',
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async validateInput(input) {
      const checked = validator.safeParse(input);
      if (checked.success) return { result: true };
      const problems = checked.error.issues.map((i) => `/${i.path.join('/')}: ${i.message}`).join('; ');
      return { result: false, message: `The output does not match the required schema: ${problems}`, errorCode: 1 };
    },
    call: async (input) => ({ data: input }),
    mapToolResultToToolResultBlockParam: (_data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: 'Structured output provided successfully' }),
  });
}
