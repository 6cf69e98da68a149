/**
 * How one stream of messages departs from the Agent SDK's recorded shapes (test/fixtures/agent-sdk/shapes.json): used
 * by the `toolgate/agent-sdk` shape test and by the `toolgate -p --output-format stream-json` one (claude's stream-json
 * is the Agent SDK's stream).
 */
import type { MessageShape } from './agent-sdk-scenarios.js';

/** Fields the Agent SDK's published types require, per message kind (`result/*`: every result). */
const REQUIRED: Record<string, readonly string[]> = {
  'system/init': ['type', 'subtype', 'apiKeySource', 'claude_code_version', 'cwd', 'tools', 'mcp_servers', 'model', 'permissionMode', 'slash_commands', 'output_style', 'skills', 'plugins', 'uuid', 'session_id'],
  assistant: ['type', 'message', 'parent_tool_use_id', 'uuid', 'session_id'],
  user: ['type', 'message', 'parent_tool_use_id', 'uuid', 'session_id'],
  'result/*': ['type', 'subtype', 'duration_ms', 'duration_api_ms', 'is_error', 'num_turns', 'stop_reason', 'total_cost_usd', 'usage', 'modelUsage', 'permission_denials', 'uuid', 'session_id'],
  stream_event: ['type', 'event', 'parent_tool_use_id', 'uuid', 'session_id'],
  'system/status': ['type', 'subtype', 'status', 'uuid', 'session_id'],
  'system/api_retry': ['type', 'subtype', 'attempt', 'max_retries', 'retry_delay_ms', 'error_status', 'error', 'uuid', 'session_id'],
  'system/permission_denied': ['type', 'subtype', 'tool_name', 'tool_use_id', 'message', 'uuid', 'session_id'],
  'system/hook_started': ['type', 'subtype', 'hook_id', 'hook_name', 'hook_event', 'uuid', 'session_id'],
  'system/hook_response': ['type', 'subtype', 'hook_id', 'hook_name', 'hook_event', 'output', 'stdout', 'stderr', 'outcome', 'uuid', 'session_id'],
  'system/task_started': ['type', 'subtype', 'task_id', 'description', 'uuid', 'session_id'],
  'system/task_progress': ['type', 'subtype', 'task_id', 'description', 'usage', 'uuid', 'session_id'],
  'system/task_updated': ['type', 'subtype', 'task_id', 'patch', 'uuid', 'session_id'],
  'system/task_notification': ['type', 'subtype', 'task_id', 'status', 'output_file', 'summary', 'uuid', 'session_id'],
  'system/background_tasks_changed': ['type', 'subtype', 'tasks', 'uuid', 'session_id'],
};

/** Every way `actual` (toolgate's) departs from `expected` (the Agent SDK's), one line each. */
export function shapeDifferences(actual: readonly MessageShape[], expected: readonly MessageShape[]): string[] {
  const out: string[] = [];
  const kinds = (list: readonly MessageShape[]) => list.map((m) => `${m.kind}${m.parent ? '*' : ''}`).join(' ');
  if (kinds(actual) !== kinds(expected)) return [`kinds: ${kinds(actual)}\n   vs: ${kinds(expected)}`];
  actual.forEach((a, i) => {
    const e = expected[i]!;
    const at = `#${i} ${a.kind}`;
    const extra = a.keys.filter((k) => !e.keys.includes(k));
    if (extra.length > 0) out.push(`${at}: fields the Agent SDK does not have: ${extra.join(', ')}`);
    const required = REQUIRED[a.kind] ?? (a.kind.startsWith('result/') ? REQUIRED['result/*'] : undefined) ?? [];
    const missing = required.filter((k) => !a.keys.includes(k));
    if (missing.length > 0) out.push(`${at}: required fields missing: ${missing.join(', ')}`);
    if (a.message && e.message) {
      if (JSON.stringify(a.message.content) !== JSON.stringify(e.message.content)) out.push(`${at}: content ${JSON.stringify(a.message.content)} vs ${JSON.stringify(e.message.content)}`);
      const extraInner = a.message.keys.filter((k) => !e.message!.keys.includes(k));
      if (extraInner.length > 0) out.push(`${at}: message fields the Agent SDK does not have: ${extraInner.join(', ')}`);
      const extraUsage = (a.message.usage ?? []).filter((k) => !(e.message!.usage ?? []).includes(k));
      if (extraUsage.length > 0) out.push(`${at}: usage fields the Agent SDK does not have: ${extraUsage.join(', ')}`);
    } else if (Boolean(a.message) !== Boolean(e.message)) out.push(`${at}: message ${a.message ? 'present' : 'absent'} vs ${e.message ? 'present' : 'absent'}`);
    if (a.event !== e.event) out.push(`${at}: stream event ${a.event} vs ${e.event}`);
    if (a.toolUseResult !== e.toolUseResult) out.push(`${at}: tool_use_result ${a.toolUseResult} vs ${e.toolUseResult}`);
  });
  return out;
}

