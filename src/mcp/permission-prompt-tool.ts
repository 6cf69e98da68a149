/**
 * `--permission-prompt-tool mcp__server__tool`: headless runs ask an MCP tool instead of a person, as Claude Code does.
 * The tool gets `{ tool_name, input, tool_use_id }` and answers with JSON text: `{"behavior":"allow","updatedInput":{…}}`
 * or `{"behavior":"deny","message":"…"}`. Anything else — an error, no answer, unreadable JSON — is a denial (fail
 * closed), saying what went wrong.
 */
import type { PermissionAnswer, RuntimePermissionRequest } from '../agent/types.js';
import type { McpClientManager } from './manager.js';

/** An `onPermissionRequest` that asks an MCP tool instead of a person (`--permission-prompt-tool`); fails closed. */
export function createPermissionPromptTool(
  manager: McpClientManager,
  toolName: string,
): (request: RuntimePermissionRequest) => Promise<PermissionAnswer> {
  return async (request) => {
    const deny = (why: string): PermissionAnswer => ({ behavior: 'deny', message: `${request.ask.message}. The permission prompt tool ${toolName} ${why}` });
    let text: string;
    try {
      const result = await manager.callToolByName(toolName, { tool_name: request.tool.name, input: request.input, tool_use_id: request.toolUseID }, request.signal);
      if (result.isError === true) return deny(`failed: ${textOf(result.content)}`);
      text = textOf(result.content);
    } catch (error) {
      return deny(`could not be called: ${error instanceof Error ? error.message : String(error)}`);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      return deny(`answered with something other than JSON: ${text.slice(0, 200)}`);
    }
    const a = answer as { behavior?: unknown; updatedInput?: unknown; message?: unknown };
    if (a.behavior === 'allow') {
      const updated = a.updatedInput !== null && typeof a.updatedInput === 'object' && !Array.isArray(a.updatedInput) ? (a.updatedInput as Record<string, unknown>) : undefined;
      return { behavior: 'allow', scope: 'once', ...(updated ? { updatedInput: updated } : {}) };
    }
    if (a.behavior === 'deny') return { behavior: 'deny', message: typeof a.message === 'string' && a.message ? a.message : `${toolName} denied this call` };
    return deny(`gave no decision ("behavior" must be "allow" or "deny")`);
  };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((c: { type?: string; text?: string }) => (c.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('');
}
