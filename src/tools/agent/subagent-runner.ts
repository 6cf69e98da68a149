/**
 * What the Agent tool needs from the layer above: something that runs the agent loop for a child. The agent layer
 * (src/agent) provides it as `services.subagents`; the tool only decides what the child gets.
 */
import type { NotificationQueue } from '../../tool/notification-queue.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import type { AnyTool } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';

export interface SubagentRequest {
  /** The context of the Agent call: the child is made from it (its depth, abort, permissions, file state). */
  readonly parent: ToolUseContext;
  readonly agentId: string;
  readonly agentType: string;
  readonly description: string;
  readonly prompt: string;
  readonly systemPrompt: string;
  /** A full model id; absent: the parent's model. */
  readonly model?: string;
  /** Which of the parent's tools the child keeps. */
  readonly tools: (tool: AnyTool) => boolean;
  /** The child's mode (already capped at the parent's). */
  readonly mode?: PermissionMode;
  readonly isAsync: boolean;
  /**
   * Nobody waits on the child's permission prompts: what would ask is denied with the rule that would allow it
   * (`shouldAvoidPermissionPrompts` on its permission context). The Agent tool sets it for background children.
   */
  readonly avoidPermissionPrompts?: boolean;
  /** Stops the child (TaskStop on a background child); a foreground child also stops with its caller's turn. */
  readonly signal?: AbortSignal;
  /** Told what the child does while it runs (a foreground child's Agent call turns it into progress for a UI). */
  readonly onEvent?: (event: SubagentEvent) => void;
  /**
   * A teammate's inbox: the child's own notification queue (its tool results carry what arrives while it works), and
   * when a turn ends the child waits on it — each batch that arrives is its next turn — until its signal stops it.
   * Absent: the child runs one turn, as any sub-agent.
   */
  readonly inbox?: NotificationQueue;
  /** A teammate's turn ended with these words; it waits on its inbox now. */
  readonly onTurnEnd?: (text: string) => void;
}

/**
 * What a running child reports: its tool calls as they start and end (`summary` is the tool's own plain-text form of
 * the call), its latest text, and its tokens so far. Events, not snapshots: the Agent tool keeps the tally.
 */
export type SubagentEvent =
  | { readonly type: 'tool_start'; readonly toolUseId: string; readonly toolName: string; readonly summary: string }
  | {
      readonly type: 'tool_end';
      readonly toolUseId: string;
      readonly isError: boolean;
      /** Set when the permission engine denied the call: its message (which names the rule that would allow it). */
      readonly denied?: string;
    }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'usage'; readonly totalTokens: number };

export interface SubagentUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface SubagentResult {
  /** The child's last assistant text. */
  readonly text: string;
  readonly toolUseCount: number;
  readonly durationMs: number;
  readonly usage: SubagentUsage;
  readonly isError: boolean;
  readonly stopReason: string;
  readonly error?: string;
}

export interface SubagentRunner {
  run(request: SubagentRequest): Promise<SubagentResult>;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** Runs sub-agents (the agent layer provides it when it has a model client). */
    readonly subagents?: SubagentRunner;
  }
}
