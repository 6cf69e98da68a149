/**
 * What `toolgate run` prints, in `claude -p`'s three formats: `text` (the final answer), `json` (one result object)
 * and `stream-json` (one JSON object per line: an init line, each assistant and user message, the result).
 */
import type { QueryEvent, QueryResult } from '../../agent/types.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

interface Writable {
  write(chunk: string): unknown;
}

export async function writeOutput(events: AsyncIterable<QueryEvent>, format: OutputFormat, out: Writable, extra: { permissionMode: string }): Promise<QueryResult> {
  let result: QueryResult | undefined;
  for await (const event of events) {
    if (event.type === 'result') result = event.result;
    if (format !== 'stream-json') continue;
    const line = streamLine(event, extra);
    if (line) out.write(`${JSON.stringify(line)}\n`);
  }
  if (!result) throw new Error('the loop ended without a result');
  if (format === 'json') out.write(`${JSON.stringify(resultLine(result))}\n`);
  if (format === 'text' && result.text) out.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  return result;
}

function streamLine(event: QueryEvent, extra: { permissionMode: string }): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'init':
      return {
        type: 'system',
        subtype: 'init',
        session_id: event.sessionId,
        cwd: event.cwd,
        model: event.model,
        tools: event.tools,
        permissionMode: extra.permissionMode,
        slash_commands: event.slashCommands,
        skills: event.skills,
      };
    case 'assistant':
      return { type: 'assistant', message: event.message, usage: event.usage, stop_reason: event.stopReason, cost_usd: event.costUsd ?? 0 };
    case 'user':
      return event.origin === 'prompt' ? undefined : { type: 'user', message: event.message };
    case 'retry':
      return { type: 'system', subtype: 'api_retry', attempt: event.attempt, delay_ms: event.delayMs, error: event.error };
    case 'result':
      return resultLine(event.result);
    default:
      return undefined;
  }
}

function resultLine(result: QueryResult): Record<string, unknown> {
  const subtype = result.stopReason === 'max_turns' ? 'error_max_turns' : result.isError ? 'error_during_execution' : 'success';
  return {
    type: 'result',
    subtype,
    is_error: result.isError,
    result: result.text,
    stop_reason: result.stopReason,
    num_turns: result.turns,
    duration_ms: Math.round(result.durationMs),
    total_cost_usd: result.costUsd,
    usage: result.usage,
    session_id: result.sessionId,
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}
