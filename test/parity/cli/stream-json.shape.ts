/**
 * The shape of `claude -p --output-format stream-json --include-partial-messages --add-dir DIR` lines, for the
 * parity recording (stream-json.json): each line's kind and its keys in order of appearance, and the values that do
 * not depend on the run (folders as placeholders).
 */
import path from 'node:path';

export const STREAM_JSON_RECORDING = path.join(import.meta.dirname, 'stream-json.json');
export const STREAM_JSON_CALLS = [{ name: 'Bash', input: { command: 'echo hi', description: 'say hi' } }];

/** Keys Claude Code prints that toolgate does not (yet), by kind of line (docs/cli.md, "stream-json keys"). */
export const MISSING: Readonly<Record<string, readonly string[]>> = {
  'system/init': [
    'analytics_disabled',
    'capabilities',
    'fast_mode_disabled_reason',
    'fast_mode_state',
    'memory_paths',
    'messaging_socket_path',
    'per_turn_effort_active',
    'product_feedback_disabled',
    'sandbox_enabled',
    'served_by_anthropic',
    'terminal_slash_commands',
    'ultrathink_available',
    'ultrathink_typed_raises',
    'view_mode',
  ],
  'stream_event/message_start': ['thinking_display', 'ttft_ms'],
  user: ['tool_result_meta'],
  'result/success': [
    'begun_message_ids',
    'fast_mode_disabled_reason',
    'fast_mode_state',
    'first_content_frame_ms',
    'model_usage_since_last_result',
    'queued_turn_count',
    'result_index',
    'safety_stops',
    'subagent_stats',
    'time_to_request_ms',
    'ttft_ms',
    'ttft_stream_ms',
  ],
};

export interface LineShape {
  /** `system/init`, `stream_event/message_start`, `assistant`, `user`, `result/success`… */
  readonly kind: string;
  readonly keys: string[];
  /** init only: its folders. */
  readonly values?: Record<string, unknown>;
}

export function streamJsonShape(stdout: string, folders: { dir: string; extra: string; home: string }): LineShape[] {
  const place = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(folders.extra, '$EXTRA').replaceAll(folders.dir, '$DIR').replaceAll(folders.home, '$HOME')) as unknown;
  const out: LineShape[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    const m = JSON.parse(line) as Record<string, unknown> & { type: string; subtype?: string; event?: { type: string } };
    const kind = m.type === 'stream_event' ? `stream_event/${m.event!.type}` : m.subtype !== undefined ? `${m.type}/${m.subtype}` : m.type;
    const shape: LineShape = { kind, keys: Object.keys(m).sort() };
    if (kind === 'system/init') out.push({ ...shape, values: { cwd: place(m.cwd), original_cwd: place(m.original_cwd), additional_directories: place(m.additional_directories) } });
    else out.push(shape);
  }
  return out;
}
