/**
 * A background sub-agent as a task of the shared registry, like a background command: TaskOutput reads its progress
 * (the lines of its output file: its calls, its words, then its final report) and TaskStop stops it (its loop is
 * aborted: running calls are cancelled and answered, no further request is made). It waits on nobody: its
 * permission prompts are denied with the rule that would allow them, and the parent sees each denial — in the
 * progress lines, in the task's facts and in the end-of-task notification, which carries the final report.
 */
import path from 'node:path';
import { taskNotificationText } from '../../tool/message-origin.js';
import type { MessageParam } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { collapseCarriageReturns, readOutputTail } from '../shared/output-file.js';
import { getTaskRegistry, type TaskEnd, type TaskInfo, type TaskStopReason } from '../shared/task-registry.js';
import { AgentLog } from './agent-log.js';
import { formatTokens } from './progress.js';
import type { SubagentRequest, SubagentResult, SubagentUsage } from './subagent-runner.js';

export const AGENT_TASK_TYPE = 'local_agent';
/** How much of a background agent's output TaskOutput shows (the rest is in the file). */
const OUTPUT_CHARS = 20_000;

export interface BackgroundAgent {
  readonly outputFile: string;
}

/**
 * Starts the child through `services.subagents` and registers it. `request` is the foreground request's shape; the
 * signal, the prompt policy and the event listener are this module's.
 */
export function launchBackgroundAgent(
  context: ToolUseContext,
  request: Omit<SubagentRequest, 'signal' | 'onEvent' | 'avoidPermissionPrompts'>,
  onSettled: () => void,
  /** What the task is called where tasks are listed (the terminal's status line): a teammate's carries its name. */
  label: string = request.description,
): BackgroundAgent {
  const { agentId, description, agentType } = request;
  const outputFile = path.join(context.options.sessionDir, 'tasks', `${agentId}.output`);
  const log = new AgentLog(outputFile);
  log.write(`Background agent ${agentId} (${agentType}): ${description}`);
  const controller = new AbortController();
  let stoppedFor: TaskStopReason | undefined;
  let result: SubagentResult | undefined;
  const run = context.services.subagents!.run({
    ...request,
    isAsync: true,
    avoidPermissionPrompts: true,
    signal: controller.signal,
    onEvent: (event) => log.record(event),
  });
  const ended: Promise<TaskEnd> = run
    .then((r): TaskEnd => {
      result = r;
      log.write(`[result] ${r.text || (r.error ? `stopped with an error: ${r.error}` : '(no text)')}`);
      const killed = r.stopReason === 'aborted';
      return {
        status: killed ? 'killed' : r.isError ? 'failed' : 'completed',
        ...(killed ? { killReason: stoppedFor ?? 'aborted' } : {}),
        summary: summaryOf(log, r.usage),
        facts: { tool_uses: log.toolUseCount, total_tokens: totalTokens(r.usage), permissions_denied: log.denials.length },
      };
    })
    .catch((error: unknown): TaskEnd => {
      const message = error instanceof Error ? error.message : String(error);
      log.write(`[result] the sub-agent failed: ${message}`);
      return { status: 'failed', summary: `failed: ${message}`, facts: { tool_uses: log.toolUseCount, permissions_denied: log.denials.length, error: message } };
    })
    .finally(onSettled);

  getTaskRegistry(context).register(
    {
      id: agentId,
      type: AGENT_TASK_TYPE,
      label,
      description: label,
      outputFile,
      startedAt: Date.now(),
      facts: { agent_id: agentId, agent_type: agentType },
      ended,
      kill: async (reason) => {
        stoppedFor ??= reason;
        controller.abort(`background agent stopped (${reason})`);
        await ended;
      },
      readOutput: () => {
        const tail = readOutputTail(outputFile, OUTPUT_CHARS * 4);
        const text = collapseCarriageReturns(tail.text);
        const shown = text.length > OUTPUT_CHARS ? text.slice(-OUTPUT_CHARS) : text;
        return { text: shown, truncated: !tail.complete || shown.length < text.length, sizeBytes: tail.sizeBytes };
      },
      endNotification: (task) => agentNotification(task, log, result),
    },
    { backgroundedBy: 'request', ...(context.services.notifications ? { notifications: context.services.notifications } : {}) },
  );
  return { outputFile };
}

function totalTokens(u: SubagentUsage): number {
  return u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

function summaryOf(log: AgentLog, usage: SubagentUsage): string {
  const n = log.toolUseCount;
  const d = log.denials.length;
  return `${n} tool ${n === 1 ? 'use' : 'uses'} · ${formatTokens(totalTokens(usage))}${d > 0 ? ` · ${d} ${d === 1 ? 'permission' : 'permissions'} denied` : ''}`;
}

/** The parent's news when the agent ends: how, what it was refused, what it did, and its final report. */
export function agentNotification(task: TaskInfo, log: AgentLog, result: SubagentResult | undefined): MessageParam {
  const how = task.status === 'completed' ? 'finished' : task.status === 'killed' ? 'was stopped' : 'failed';
  const report = result?.text || (result?.error ? `The sub-agent stopped with an error: ${result.error}` : '(the sub-agent returned no text)');
  const denials = log.denials;
  const transcript = log.transcript(result?.text ?? '');
  const body = [
    `<task-id>${task.id}</task-id>`,
    `<task-type>${task.type}</task-type>`,
    `<status>${task.status}</status>`,
    `<summary>The background agent "${task.label}" (${task.id}) ${how}: ${task.summary ?? ''}</summary>`,
    ...(denials.length > 0
      ? [
          '<denied-permissions>',
          'It could not ask anyone for permission, so these calls were denied (each says the rule that would allow it):',
          ...denials.map((c) => `- ${c.name}(${c.summary}): ${c.denial ?? ''}`),
          '</denied-permissions>',
        ]
      : []),
    ...(transcript !== '' ? ['<transcript>', transcript, '</transcript>'] : []),
    '<result>',
    report,
    '</result>',
    `<output-file>${task.outputFile}</output-file>`,
  ];
  return { role: 'user', content: taskNotificationText(body) };
}
