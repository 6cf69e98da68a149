/** What the next request of a session would hold, by part, about (4 characters a token): `/context`. */
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { ToolRuntime } from '../agent/types.js';
import type { MessageParam } from '../tool/tool.js';

export interface ContextUsage {
  /** Tokens, about, of each part. */
  readonly systemPrompt: number;
  readonly builtInTools: { readonly count: number; readonly tokens: number };
  readonly mcpTools: { readonly count: number; readonly tokens: number };
  readonly messages: { readonly count: number; readonly typed: number; readonly replies: number; readonly toolResults: number };
  readonly total: number;
  /** The input side of the last request as the API counted it (0: none yet). */
  readonly lastRequestTokens: number;
}

const approxTokens = (chars: number) => Math.ceil(chars / 4);

export async function contextUsageOf(runtime: ToolRuntime, messages: readonly MessageParam[], model: string, lastRequestTokens: number): Promise<ContextUsage> {
  const system = approxTokens(buildSystemPrompt({ cwd: runtime.cwd, model }).length);
  const definitions = await runtime.definitions({ model });
  let builtIn = 0;
  let mcp = 0;
  let mcpCount = 0;
  for (const d of definitions) {
    const size = JSON.stringify(d).length;
    if (runtime.findTool(d.name)?.mcpInfo) {
      mcp += size;
      mcpCount++;
    } else builtIn += size;
  }
  const parts = { typed: 0, replies: 0, results: 0 };
  for (const m of messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      const size = JSON.stringify(b).length;
      if (m.role === 'assistant') parts.replies += size;
      else if (b.type === 'tool_result') parts.results += size;
      else parts.typed += size;
    }
  }
  const counted = {
    systemPrompt: system,
    builtInTools: { count: definitions.length - mcpCount, tokens: approxTokens(builtIn) },
    mcpTools: { count: mcpCount, tokens: approxTokens(mcp) },
    messages: { count: messages.length, typed: approxTokens(parts.typed), replies: approxTokens(parts.replies), toolResults: approxTokens(parts.results) },
  };
  const total = counted.systemPrompt + counted.builtInTools.tokens + counted.mcpTools.tokens + counted.messages.typed + counted.messages.replies + counted.messages.toolResults;
  return { ...counted, total, lastRequestTokens };
}
