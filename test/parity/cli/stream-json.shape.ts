/**
 * The shape of `claude -p --output-format stream-json --include-partial-messages --add-dir DIR` lines, for the
 * parity recording (stream-json.json): each line's kind and its keys in order of appearance, and the values that do
 * not depend on the run (folders as placeholders).
 */
import path from 'node:path';

export const STREAM_JSON_RECORDING = path.join(import.meta.dirname, 'stream-json.json');
export const STREAM_JSON_CALLS = [{ name: 'Bash', input: { command: 'echo hi', description: 'say hi' } }];

/** Keys Claude Code prints that toolgate does not, by kind of line, each for its reason (docs/cli.md, "stream-json keys"). */
export const MISSING: Readonly<Record<string, readonly string[]>> = {
  'system/init': ['memory_paths', 'messaging_socket_path', 'terminal_slash_commands'],
};

/**
 * The values compared, by kind of line: those that do not depend on the run (ids the scripted server gives are the
 * same in both). `capabilities` is left out on purpose: Claude Code lists its control-protocol extensions, toolgate
 * none (docs/cli.md).
 */
export const COMPARED: Readonly<Record<string, readonly string[]>> = {
  'system/init': [
    'cwd', 'original_cwd', 'additional_directories', 'analytics_disabled', 'product_feedback_disabled', 'served_by_anthropic', 'fast_mode_state', 'fast_mode_disabled_reason',
    'per_turn_effort_active', 'ultrathink_available', 'ultrathink_typed_raises', 'view_mode', 'sandbox_enabled', 'output_style', 'permissionMode', 'apiKeySource', 'model',
  ],
  'stream_event/message_start': ['thinking_display', 'api_message_id', 'parent_tool_use_id'],
  user: ['tool_result_meta', 'parent_tool_use_id'],
  'result/success': [
    'is_error', 'result', 'num_turns', 'stop_reason', 'terminal_reason', 'permission_denials', 'api_error_status', 'fast_mode_state', 'fast_mode_disabled_reason',
    'subagent_stats', 'safety_stops', 'queued_turn_count', 'result_index', 'begun_message_ids',
  ],
};

/** Keys whose value is the run's own (a time): only its type is kept. */
export const TIMED = ['ttft_ms', 'ttft_stream_ms', 'time_to_request_ms', 'first_content_frame_ms', 'duration_ms', 'duration_api_ms'] as const;

export interface LineShape {
  /** `system/init`, `stream_event/message_start`, `assistant`, `user`, `result/success`… */
  readonly kind: string;
  readonly keys: string[];
  /** The values of COMPARED keys (folders as placeholders). */
  readonly values?: Record<string, unknown>;
  /** The types of TIMED keys. */
  readonly types?: Record<string, string>;
}

export function streamJsonShape(stdout: string, folders: { dir: string; extra: string; home: string }): LineShape[] {
  const place = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(folders.extra, '$EXTRA').replaceAll(folders.dir, '$DIR').replaceAll(folders.home, '$HOME')) as unknown;
  const out: LineShape[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    const m = JSON.parse(line) as Record<string, unknown> & { type: string; subtype?: string; event?: { type: string } };
    const kind = m.type === 'stream_event' ? `stream_event/${m.event!.type}` : m.subtype !== undefined ? `${m.type}/${m.subtype}` : m.type;
    const values: Record<string, unknown> = {};
    for (const k of COMPARED[kind] ?? []) if (k in m) values[k] = place(m[k]);
    const types: Record<string, string> = {};
    for (const k of TIMED) if (k in m) types[k] = typeof m[k];
    out.push({ kind, keys: Object.keys(m).sort(), ...(Object.keys(values).length > 0 ? { values } : {}), ...(Object.keys(types).length > 0 ? { types } : {}) });
  }
  return out;
}
