/**
 * `claude -p --output-format json`: what a script reads from stdout — one line, the result object. Each case is the
 * scripted model's calls and the flags; the recording keeps the line count, the object's keys, and the values that do
 * not depend on the run (ids, times, costs and usage are left out).
 */
import path from 'node:path';

export const JSON_OUTPUT_RECORDING = path.join(import.meta.dirname, 'json-output.json');

export interface JsonOutputCase {
  readonly name: string;
  readonly calls: readonly { readonly name: string; readonly input: Record<string, unknown> }[];
  readonly flags: readonly string[];
}

export const JSON_OUTPUT_CASES: readonly JsonOutputCase[] = [
  { name: 'allowed call', calls: [{ name: 'Bash', input: { command: 'echo hi', description: 'say hi' } }], flags: ['--allowedTools', 'Bash'] },
  { name: 'denied call', calls: [{ name: 'Bash', input: { command: 'touch made-by-the-model', description: 'make a file' } }], flags: [] },
  { name: 'no call', calls: [], flags: [] },
];

/** The values kept: the run's own (ids, durations, costs, usage) are not. */
const KEPT = [
  'type', 'subtype', 'is_error', 'result', 'num_turns', 'stop_reason', 'terminal_reason', 'permission_denials', 'api_error_status',
  'fast_mode_state', 'fast_mode_disabled_reason', 'subagent_stats', 'safety_stops', 'queued_turn_count', 'result_index',
] as const;

export interface JsonOutputShape {
  readonly lines: number;
  readonly keys: string[];
  readonly values: Record<string, unknown>;
}

export function jsonOutputShape(stdout: string, dir: string): JsonOutputShape {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const result = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const k of KEPT) if (k in result) values[k] = JSON.parse(JSON.stringify(result[k]).replaceAll(dir, '$DIR')) as unknown;
  return { lines: lines.length, keys: Object.keys(result).sort(), values };
}
