/**
 * The messages of `toolgate/agent-sdk` have the Agent SDK's shapes: on each scripted scenario, the same sequence of
 * message kinds, no field the Agent SDK does not have, every field its published types require, the same content
 * block types, parent ids where it has them. The reference is the golden file of shapes recorded from the real Agent
 * SDK (test/fixtures/agent-sdk/shapes.json, `scripts/agent-sdk-shapes.ts`), so CI checks shapes without the SDK; when
 * the SDK is installed outside the repository, the golden file is also checked against it, live.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as toolgate from 'toolgate/agent-sdk';
import { loadRealAgentSdk, realAgentSdkEntry, runScenario, SCENARIOS, shapeOf, type MessageShape } from './helpers/agent-sdk-scenarios.js';

const golden = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/agent-sdk/shapes.json'), 'utf8')) as {
  agentSdkVersion: string;
  scenarios: Record<string, { messages: MessageShape[]; throws?: string }>;
};

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

describe(`toolgate/agent-sdk against the Agent SDK ${golden.agentSdkVersion}'s shapes (golden file)`, () => {
  it('the golden file covers every scenario', () => {
    expect(Object.keys(golden.scenarios).sort()).toEqual(SCENARIOS.map((s) => s.name).sort());
  });
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: the same messages, in the same order, with the Agent SDK's fields`, async () => {
      const run = await runScenario(toolgate as never, scenario);
      const expected = golden.scenarios[scenario.name]!;
      expect(shapeDifferences(run.messages.map(shapeOf), expected.messages)).toEqual([]);
      // Where the Agent SDK's stream ends by throwing (an error result), toolgate's does too, with its prefix.
      expect(run.error?.split(':')[0]).toEqual(expected.throws);
    });
  }
});

// CI has no Agent SDK (it is never a dependency): the live check runs only where it was installed outside the repo.
const live = realAgentSdkEntry() !== undefined;
describe.skipIf(!live)('the golden file against the installed Agent SDK (skipped: the Agent SDK is not installed outside the repository)', () => {
  for (const name of ['read', 'read-partial', 'deny-no-prompt', 'subagent', 'structured-retry', 'streaming-two-turns', 'background']) {
    it(`${name}: the installed Agent SDK still yields the recorded shapes`, { timeout: 60_000 }, async () => {
      const sdk = (await loadRealAgentSdk())!;
      const run = await runScenario(sdk, SCENARIOS.find((s) => s.name === name)!);
      const recorded = golden.scenarios[name]!.messages;
      expect(run.messages.map((m) => shapeOf(m).kind)).toEqual(recorded.map((m) => m.kind));
    });
  }
});
