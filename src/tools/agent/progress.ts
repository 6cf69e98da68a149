/**
 * The Agent call's progress: the child's events folded into snapshots (each progress message stands alone, so a view
 * only ever reads the last one and a UI that missed some loses nothing).
 */
import type { ToolCallProgress } from '../../tool/tool.js';
import type { SubagentEvent } from './subagent-runner.js';

/** How many of the child's latest calls a snapshot carries. */
export const RECENT_CALLS = 5;
const MAX_ACTIVITY_CHARS = 200;

export interface AgentCallSummary {
  readonly id: string;
  readonly name: string;
  /** The tool's plain-text form of the call's arguments. */
  readonly summary: string;
  readonly status: 'running' | 'done' | 'error';
}

export interface AgentProgress {
  readonly type: 'agent_progress';
  readonly [key: string]: unknown;
  readonly agentId: string;
  readonly description: string;
  /** Calls finished so far. */
  readonly toolUseCount: number;
  /** Calls started so far (running ones too). */
  readonly startedCount: number;
  readonly totalTokens: number;
  /** The latest calls, oldest first. */
  readonly recent: readonly AgentCallSummary[];
  /** The child's latest text (first line, cut short). */
  readonly lastActivity?: string;
}

export function agentProgressReporter(
  // The executor stamps progress with the call's tool_use id; call() is not told it.
  base: { agentId: string; description: string; toolUseID: string },
  onProgress: ToolCallProgress<AgentProgress>,
): (event: SubagentEvent) => void {
  let recent: AgentCallSummary[] = [];
  let toolUseCount = 0;
  let startedCount = 0;
  let totalTokens = 0;
  let lastActivity: string | undefined;
  return (event) => {
    switch (event.type) {
      case 'tool_start':
        startedCount++;
        recent = [...recent, { id: event.toolUseId, name: event.toolName, summary: event.summary, status: 'running' as const }].slice(-RECENT_CALLS);
        break;
      case 'tool_end':
        toolUseCount++;
        recent = recent.map((c) => (c.id === event.toolUseId ? { ...c, status: event.isError ? ('error' as const) : ('done' as const) } : c));
        break;
      case 'text': {
        const line = event.text.trim().split('\n')[0] ?? '';
        lastActivity = line.length > MAX_ACTIVITY_CHARS ? `${line.slice(0, MAX_ACTIVITY_CHARS - 1)}…` : line;
        break;
      }
      case 'usage':
        // Nothing new to draw when the count did not move.
        if (event.totalTokens === totalTokens) return;
        totalTokens = event.totalTokens;
        break;
    }
    onProgress({
      toolUseID: base.toolUseID,
      data: {
        type: 'agent_progress',
        agentId: base.agentId,
        description: base.description,
        toolUseCount,
        startedCount,
        totalTokens,
        recent,
        ...(lastActivity !== undefined ? { lastActivity } : {}),
      },
    });
  };
}

/** "850 tokens", "12.3k tokens". */
export function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n} tokens`;
}
