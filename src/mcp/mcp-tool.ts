/**
 * A tool of an MCP server as a toolgate tool: `mcp__<server>__<tool>`, the server's JSON Schema as
 * `inputJSONSchema`, traits from the server's annotations, results mapped by `result.ts` under the MCP output cap.
 *
 * Annotations are hints from the server, so they only ever make toolgate more careful or let it run calls side by
 * side: `readOnlyHint` → read-only and concurrency-safe (plan mode lets it through; the engine still asks before a
 * first MCP call unless a rule allows it); `destructiveHint` → the tool asks every time unless an allow rule names this
 * very tool (`mcp__server__tool`) — a server-wide `mcp__server` rule is not enough.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { buildTool } from '../tool/build-tool.js';
import type { PermissionResult } from '../tool/permission-types.js';
import type { AnyTool, ToolInputJSONSchema, ToolProgressData } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { McpConnection } from './connection.js';
import { buildMcpToolName, normalizeNameForMcp } from './names.js';
import { mapMcpToolOutput, type McpToolOutput } from './result.js';

/** Claude Code's default cap on one MCP result (`MAX_MCP_OUTPUT_TOKENS`), and the ceiling a server may raise it to. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;
export const MAX_MCP_RESULT_SIZE_CHARS_CEILING = 500_000;
/** Descriptions longer than this are cut: a server must not fill the prompt through one tool's description. */
export const MAX_MCP_DESCRIPTION_CHARS = 2_048;
const CHARS_PER_TOKEN = 4;

export interface McpToolOptions {
  /** `MAX_MCP_OUTPUT_TOKENS` (default 25 000): results above it are persisted and paged like built-in outputs. */
  readonly maxOutputTokens?: number;
  /** The server's `alwaysLoad`: never deferred behind ToolSearch. */
  readonly alwaysLoad?: boolean;
}

export interface McpProgressData extends ToolProgressData {
  readonly type: 'mcp_progress';
  readonly serverName: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export function createMcpTool(connection: McpConnection, definition: McpToolDefinition, options: McpToolOptions = {}): AnyTool {
  const serverName = normalizeNameForMcp(connection.name);
  const toolName = normalizeNameForMcp(definition.name);
  const name = buildMcpToolName(connection.name, definition.name);
  const annotations = definition.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  const destructive = annotations.destructiveHint === true && !readOnly;
  const meta = (definition._meta ?? {}) as Record<string, unknown>;
  const description = truncate((definition.description ?? '').trim() || `${definition.title ?? definition.name} (from MCP server ${connection.name})`, MAX_MCP_DESCRIPTION_CHARS);
  const label = `${connection.name} - ${definition.title ?? annotations.title ?? definition.name} (MCP)`;

  return buildTool<McpToolOutput, McpProgressData>({
    name,
    inputJSONSchema: { ...(definition.inputSchema as Record<string, unknown>), type: 'object' } as ToolInputJSONSchema,
    mcpInfo: { serverName, toolName },
    isMcp: true,
    // As Claude Code 2.1.328: background agents keep MCP tools (their prompts are denied there, as every tool's).
    asyncSafe: true,
    ...(options.alwaysLoad === true || meta['anthropic/alwaysLoad'] === true ? { alwaysLoad: true } : {}),
    searchHint: definition.title ?? annotations.title,
    maxResultSizeChars: resultSizeLimit(meta, options.maxOutputTokens),
    prompt: async () => description,
    userFacingName: () => label,
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    isDestructive: () => destructive,
    toAutoClassifierInput: (input) => `${name} ${JSON.stringify(input)}`.slice(0, 2_000),
    checkPermissions: async (_input, context): Promise<PermissionResult> => {
      if (!destructive) return { behavior: 'passthrough' };
      const rules = context.getAppState().toolPermissionContext.alwaysAllowRules;
      // The engine's allow-rule layer then allows it (deny and ask rules still come first).
      if (rules.some((r) => r.ruleValue.ruleContent === undefined && r.ruleValue.toolName === name)) return { behavior: 'passthrough' };
      const reason = `the MCP server "${connection.name}" marks ${definition.name} as destructive; only an allow rule naming ${name} runs it without asking`;
      return { behavior: 'ask', message: `${name} needs permission: ${reason}`, decisionReason: { layer: 'toolCheck', reason, classifierApprovable: false } };
    },
    mapToolResultToToolResultBlockParam: mapMcpToolOutput,
    call: async (input, context: ToolUseContext, _canUseTool, _parent, onProgress) => {
      let result;
      try {
        result = await connection.callTool(definition.name, input, {
          signal: context.abortController.signal,
          onProgress: onProgress
            ? (p) => onProgress({ toolUseID: context.toolUseId ?? '', data: { type: 'mcp_progress', serverName: connection.name, progress: p.progress, total: p.total, message: p.message } })
            : undefined,
        });
      } catch (error) {
        // The SDK checks structuredContent against the tool's outputSchema: a mismatch is the server's error, told
        // to the model as one, not a crash of the call.
        if (error instanceof McpError && /structured content|output schema/i.test(error.message)) {
          return { data: { content: [{ type: 'text', text: `MCP server "${connection.name}" returned a result that does not match ${definition.name}'s output schema: ${error.message}` }], isError: true } };
        }
        throw error;
      }
      const data: McpToolOutput = {
        content: Array.isArray(result.content) ? result.content : [],
        ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
        ...(result.isError === true ? { isError: true } : {}),
      };
      const mcpMeta = result._meta !== undefined || result.structuredContent !== undefined
        ? { ...(result._meta !== undefined ? { _meta: result._meta } : {}), ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) }
        : undefined;
      return mcpMeta ? { data, mcpMeta } : { data };
    },
  });
}

/** `MAX_MCP_OUTPUT_TOKENS` in characters, unless the server raises this tool's limit (`anthropic/maxResultSizeChars`). */
export function resultSizeLimit(meta: Record<string, unknown>, maxOutputTokens = DEFAULT_MAX_MCP_OUTPUT_TOKENS): number {
  const base = maxOutputTokens * CHARS_PER_TOKEN;
  const raised = meta['anthropic/maxResultSizeChars'];
  if (typeof raised === 'number' && Number.isFinite(raised) && raised > base) return Math.min(raised, MAX_MCP_RESULT_SIZE_CHARS_CEILING);
  return base;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
