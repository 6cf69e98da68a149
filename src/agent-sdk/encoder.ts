/**
 * The one encoder: the loop's events (`QueryEvent`) → the Agent SDK's messages (`SDKMessage`). `toolgate/agent-sdk`'s
 * `query()` yields what it returns, and `toolgate run -p --output-format stream-json|json` prints the same objects;
 * nothing else in the house writes these shapes.
 *
 * Per user turn it keeps what a `result` reports beyond the loop's own result: `num_turns` as Claude Code counts it
 * (1 + the user messages the turn added: each tool result, a Stop hook's feedback, the structured-output request) and
 * the calls that were refused. A tool's typed output (`tool_use_result`) goes through the session's redactor, as its
 * result did. What it keeps is here; the messages one event makes by itself are built in encoder-messages.ts, their
 * field values in encoder-fields.ts (this encoder's helpers, called by nothing else).
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { ApiFailure, QueryEvent, QueryResult } from '../agent/types.js';
import { backgroundTaskOf, type SessionTaskEnd } from '../session/index.js';
import { isObject, resultText, stripErrorTags, totalTokens } from './encoder-fields.js';
import { toolResultMeta, TurnFigures } from './encoder-figures.js';
import { assistantMessage, hookMessage, initMessage, resultMessages, retryMessage, subagentEndMessages, type MessageBase } from './encoder-messages.js';
import type { PermissionMode, SDKMessage, SDKPermissionDenial, SDKResultMessage, SDKSystemMessage, SDKUserMessage, UUID } from './messages.js';
import { randomUUID } from '../tool/crypto.js';

/** What the encoder asks the session about (the init message's facts, redaction). */
export interface SessionFacts {
  readonly sessionId: string;
  permissionMode(): PermissionMode;
  mcpServers(): { name: string; status: string; source?: string }[];
  agents(): string[];
  /** The plugins loaded (the init message's `plugins`). */
  plugins?(): { name: string; path: string }[];
  readonly apiKeySource: SDKSystemMessage['apiKeySource'];
  readonly betas?: readonly string[];
  /** The working directories beyond the cwd (`--add-dir`, `additionalDirectories`): init's `additional_directories`. */
  readonly additionalDirectories?: readonly string[];
  /** A tool's typed output, with every known secret replaced. */
  redact<T>(value: T): T;
  /** Where a sub-agent's conversation is kept (`task_notification.output_file`). */
  subagentTranscript(agentId: string): string;
  readonly maxOutputTokens: number;
  /** Whether the session's Bash commands run in the OS sandbox (init's `sandbox_enabled`). */
  readonly sandboxEnabled?: boolean;
  /** The program's messages still waiting for their turn (a result's `queued_turn_count`). */
  queuedTurns?(): number;
}


export interface EncoderOptions {
  readonly includePartialMessages?: boolean;
  readonly includeHookEvents?: boolean;
  readonly forwardSubagentText?: boolean;
  /** Echo each user prompt back (`--replay-user-messages`). */
  readonly replayUserMessages?: boolean;
  /** The next prompt as the program sent it (the loop's carries reminders added for the model); replayed as given. */
  readonly replayedPrompt?: () => MessageParam | undefined;
  /** The structured-output tool's name: its result text is its `tool_use_result`, as in the Agent SDK. */
  readonly structuredOutputTool?: string;
  /**
   * The lines are `claude -p`'s (`toolgate -p --output-format stream-json|json`): they carry what Claude Code prints
   * there beyond the Agent SDK's messages (init's `served_by_anthropic` and `sandbox_enabled`, a result's
   * `begun_message_ids`).
   */
  readonly cliLines?: boolean;
}

interface SubagentState {
  readonly started: number;
  readonly description: string;
  readonly agentType: string;
  tokens: number;
  toolUses: number;
}

const PROGRESS_EVERY_MS = 1_000;

export class SdkMessageEncoder {
  #numTurns = 1;
  #denials: SDKPermissionDenial[] = [];
  /** The id of the API message whose stream events are going out (`stream_event.api_message_id`). */
  #apiMessageId: string | undefined;
  /** Tool calls of the main thread seen in the stream and not yet answered. */
  readonly #toolNames = new Map<string, { name: string; input: Record<string, unknown>; started: number; lastProgress: number }>();
  readonly #subagents = new Map<string, SubagentState>();
  /** Background commands the session's calls started and that have not ended: task id → the call and its words. */
  readonly #background = new Map<string, { toolUseId: string; description: string }>();
  /** The last result: what a face needs after the stream (the error a `query()` throws, the CLI's exit code). */
  lastResult: SDKResultMessage | undefined;
  readonly #figures = new TurnFigures();

  constructor(
    private readonly facts: SessionFacts,
    private readonly options: EncoderOptions = {},
  ) {}

  encode(event: QueryEvent): SDKMessage[] {
    const base = () => ({ uuid: randomUUID() as UUID, session_id: this.facts.sessionId });
    switch (event.type) {
      case 'init':
        this.#numTurns = 1;
        this.#denials = [];
        this.#figures.turnStarted();
        return [initMessage(event, this.facts, base(), this.options.cliLines === true)];
      case 'requesting':
        this.#figures.requesting(event.at);
        return this.options.includePartialMessages ? [{ type: 'system', subtype: 'status', status: 'requesting', ...base() }] : [];
      case 'stream_event': {
        if (!this.options.includePartialMessages) return [];
        // Every partial line names the API message it belongs to, as Claude Code's do (`api_message_id`).
        const raw = event.event as { type?: string; message?: { id?: string } };
        const start = raw.type === 'message_start';
        if (start && typeof raw.message?.id === 'string') {
          this.#apiMessageId = raw.message.id;
          this.#figures.messageBegun(raw.message.id);
        }
        const id = this.#apiMessageId !== undefined ? { api_message_id: this.#apiMessageId } : {};
        // A response's first line: how long its request waited for it, and how thinking is shown (as updates: the
        // thinking deltas themselves, as Claude Code's -p stream-json has it).
        const first = start ? { ...(event.ttftMs !== undefined ? { ttft_ms: Math.round(event.ttftMs) } : {}), thinking_display: 'updates' } : {};
        return [{ type: 'stream_event', event: event.event as never, parent_tool_use_id: null, ...id, ...base(), ...first }];
      }
      case 'assistant':
        this.#figures.responseStopped(event.stopReason);
        return [];
      case 'assistant_block':
        this.#figures.block(event.timing);
        if (event.block.type === 'tool_use') {
          const input = isObject(event.block.input) ? event.block.input : {};
          const now = performance.now();
          // A heartbeat for calls that take a while: the first after a second, then at most one a second.
          this.#toolNames.set(event.block.id, { name: event.block.name, input, started: now, lastProgress: now });
        }
        // The loop's id for the block: what a program hands `resumeSessionAt` (the transcript keeps it).
        return [assistantMessage(event, null, { ...base(), ...(event.uuid ? { uuid: event.uuid as UUID } : {}) })];
      case 'tool_result':
        return this.#toolResult(event.outcome, base, event.uuid);
      case 'user':
        return this.#user(event, base);
      case 'retry':
        return [retryMessage(event, base())];
      case 'tool_progress': {
        const tool = this.#toolNames.get(event.progress.toolUseID);
        const now = performance.now();
        if (!tool || now - tool.lastProgress < PROGRESS_EVERY_MS) return [];
        tool.lastProgress = now;
        return [{ type: 'tool_progress', tool_use_id: event.progress.toolUseID, tool_name: tool.name, parent_tool_use_id: null, elapsed_time_seconds: Math.round((now - tool.started) / 100) / 10, ...base() }];
      }
      case 'hook': {
        const h = event.hook;
        // SessionStart's hooks are always reported, as in the Agent SDK; the others with includeHookEvents.
        if (!this.options.includeHookEvents && h.event !== 'SessionStart') return [];
        return [hookMessage(h, base)];
      }
      case 'subagent':
        return this.#subagent(event, base);
      case 'result':
        return this.#result(event.result, base);
      default:
        // text/thinking deltas, whole-turn assistant messages, tool_use hand-overs and fallbacks have no message
        // of their own: the blocks and stream events above carry them.
        return [];
    }
  }

  #toolResult(outcome: ToolUseOutcome, base: () => MessageBase, uuid?: string): SDKMessage[] {
    const out: SDKMessage[] = [];
    const call = this.#toolNames.get(outcome.toolUseId);
    this.#toolNames.delete(outcome.toolUseId);
    const decision = outcome.decision;
    if (decision?.behavior === 'deny') {
      this.#denials.push({ tool_name: outcome.toolName, tool_use_id: outcome.toolUseId, tool_input: { ...(call?.input ?? outcome.input ?? {}) } });
      const trace = decision.decisionReason;
      // Refused without anyone asked: a rule, the mode, a safety check, a headless session. A hook's or a person's
      // (canUseTool's) refusal is in permission_denials only, as in the Agent SDK.
      const asked = trace?.layer === 'prompt' && trace.answer !== undefined;
      if (trace?.layer !== 'hook' && !asked) {
        out.push({
          type: 'system',
          subtype: 'permission_denied',
          tool_name: outcome.toolName,
          tool_use_id: outcome.toolUseId,
          message: decision.message,
          ...base(),
        });
      }
    }
    const taskId = backgroundTaskOf(outcome);
    if (taskId !== undefined) {
      const input = call?.input ?? {};
      const description = typeof input.description === 'string' ? input.description : typeof input.command === 'string' ? input.command : taskId;
      this.#background.set(taskId, { toolUseId: outcome.toolUseId, description });
      out.push(this.#backgroundTasks(base), { type: 'system', subtype: 'task_started', task_id: taskId, tool_use_id: outcome.toolUseId, description, is_backgrounded: true, task_type: 'local_bash', ...base() });
    }
    this.#numTurns++;
    const meta = toolResultMeta(outcome);
    out.push({
      type: 'user',
      message: { role: 'user', content: [outcome.result] },
      parent_tool_use_id: null,
      ...base(),
      ...(uuid ? { uuid: uuid as UUID } : {}),
      timestamp: new Date().toISOString(),
      tool_use_result: this.#typedOutput(outcome),
      ...(meta ? { tool_result_meta: meta } : {}),
    });
    return out;
  }

  /** The tool's typed output as the Agent SDK passes it on: an error as its text, an MCP result as its content. */
  #typedOutput(outcome: ToolUseOutcome): unknown {
    if (outcome.isError || outcome.output === undefined) return `Error: ${stripErrorTags(resultText(outcome.result))}`;
    if (outcome.toolName === this.options.structuredOutputTool) return resultText(outcome.result);
    const output = outcome.tool?.isMcp === true && isObject(outcome.output) && Array.isArray(outcome.output.content) ? outcome.output.content : outcome.output;
    return this.facts.redact(output);
  }

  #user(event: Extract<QueryEvent, { type: 'user' }>, base: () => MessageBase): SDKMessage[] {
    switch (event.origin) {
      case 'tool_results':
        // Each result went out as its own message when it came.
        return [];
      case 'prompt':
        return this.options.replayUserMessages ? [{ type: 'user', message: this.options.replayedPrompt?.() ?? event.message, parent_tool_use_id: null, ...base(), isReplay: true as const }] : [];
      case 'attachment':
        // What a tool's newMessages add (a sub-agent's transcript…) goes to the model and the transcript; the Agent
        // SDK's stream does not show Claude Code's attachments, so neither does this one.
        return [];
      default:
        this.#numTurns++;
        // The structured-output request is the session's own words, not the person's (isSynthetic).
        return [{ type: 'user', message: event.message, parent_tool_use_id: null, ...(event.origin === 'structured_output' ? { isSynthetic: true } : {}), ...base(), timestamp: new Date().toISOString() } satisfies SDKUserMessage];
    }
  }

  #subagent(event: Extract<QueryEvent, { type: 'subagent' }>, base: () => MessageBase): SDKMessage[] {
    const { parentToolUseId: parent, agentId, update } = event;
    const tags = { agent_id: agentId, subagent_type: event.agentType, task_description: event.description };
    if (update.phase === 'start') {
      this.#figures.subagentStarted(this.#toolNames.get(parent)?.input, update, event.agentType);
      this.#subagents.set(agentId, { started: performance.now(), description: event.description, agentType: event.agentType, tokens: 0, toolUses: 0 });
      return [
        {
          type: 'system',
          subtype: 'task_started',
          task_id: agentId,
          tool_use_id: parent,
          description: event.description,
          subagent_type: event.agentType,
          is_backgrounded: update.isAsync,
          spawn_depth: update.depth,
          task_type: 'local_agent',
          prompt: update.prompt,
          ...base(),
        },
      ];
    }
    const state = this.#subagents.get(agentId);
    if (update.phase === 'end') {
      this.#subagents.delete(agentId);
      this.#figures.subagentEnded(update.result);
      return subagentEndMessages(event, update, this.facts.subagentTranscript(agentId), base);
    }
    const inner = update.event;
    if (inner.type === 'subagent' && inner.update.phase === 'start') this.#figures.subagentStarted(undefined, inner.update, inner.agentType);
    else if (inner.type === 'subagent' && inner.update.phase === 'end') this.#figures.subagentEnded(inner.update.result);
    switch (inner.type) {
      case 'user': {
        if (inner.origin === 'tool_results' || inner.origin === 'attachment') return [];
        const content = typeof inner.message.content === 'string' ? [{ type: 'text' as const, text: inner.message.content }] : inner.message.content;
        return [{ type: 'user', message: { role: 'user', content }, parent_tool_use_id: parent, ...base(), timestamp: new Date().toISOString(), ...tags } as SDKUserMessage];
      }
      case 'assistant_block': {
        if (inner.block.type !== 'tool_use' && !this.options.forwardSubagentText) return [];
        const out: SDKMessage[] = [];
        if (inner.block.type === 'tool_use' && state) {
          state.toolUses++;
          state.tokens = totalTokens(inner.usage) + state.tokens;
          const input = isObject(inner.block.input) ? inner.block.input : {};
          out.push({
            type: 'system',
            subtype: 'task_progress',
            task_id: agentId,
            tool_use_id: parent,
            description: typeof input.description === 'string' ? input.description : `Running ${inner.block.name}`,
            subagent_type: event.agentType,
            usage: { total_tokens: state.tokens, tool_uses: state.toolUses, duration_ms: Math.round(performance.now() - state.started) },
            last_tool_name: inner.block.name,
            ...base(),
          });
        }
        out.push(assistantMessage(inner, parent, base(), tags));
        return out;
      }
      case 'tool_result':
        return [{ type: 'user', message: { role: 'user', content: [inner.outcome.result] }, parent_tool_use_id: parent, ...base(), timestamp: new Date().toISOString(), ...tags } as SDKUserMessage];
      default:
        return [];
    }
  }

  /**
   * A background command of this session ended (the session hears it from the task registry): its update, its
   * notification and the new list, as the Agent SDK sends them. Nothing for a task this session did not start.
   */
  taskEnded(task: SessionTaskEnd): SDKMessage[] {
    const started = this.#background.get(task.id);
    if (!started) return [];
    this.#background.delete(task.id);
    const base = () => ({ uuid: randomUUID() as UUID, session_id: this.facts.sessionId });
    return [
      { type: 'system', subtype: 'task_updated', task_id: task.id, patch: { status: task.status, end_time: task.endedAt }, ...base() },
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: task.id,
        tool_use_id: started.toolUseId,
        status: task.status === 'killed' ? 'stopped' : task.status,
        output_file: task.outputFile,
        summary: task.summary,
        ...base(),
      },
      this.#backgroundTasks(base),
    ];
  }

  #backgroundTasks(base: () => MessageBase): SDKMessage {
    const tasks = [...this.#background].map(([id, t]) => ({ task_id: id, task_type: 'local_bash', description: t.description }));
    return { type: 'system', subtype: 'background_tasks_changed', tasks, ...base() };
  }

  #result(result: QueryResult, base: () => MessageBase): SDKMessage[] {
    const out: SDKMessage[] = [];
    if (result.stopReason === 'aborted' && result.apiStopReason === 'tool_use') {
      // Claude Code's note that the person stopped the turn during its tool calls (the marker programs look for).
      this.#numTurns++;
      out.push({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] }, parent_tool_use_id: null, ...base(), timestamp: new Date().toISOString() } satisfies SDKUserMessage);
    }
    const { fields, times } = this.#figures.resultFields(result.modelUsage ?? {}, { maxOutputTokens: this.facts.maxOutputTokens, queued: this.facts.queuedTurns?.() ?? 0, begun: this.options.cliLines === true });
    const { apiError, result: message } = resultMessages(result, { numTurns: this.#numTurns, denials: this.#denials, maxOutputTokens: this.facts.maxOutputTokens, figures: fields, times }, base);
    if (apiError) out.push(apiError);
    out.push(message);
    this.lastResult = message;
    return out;
  }
}

/** The error a `query()` throws after an error result, as the Agent SDK does (programs catch on this prefix). */
export function resultError(result: SDKResultMessage): Error {
  const detail = result.subtype === 'success' ? result.result : result.errors.join('; ');
  return new Error(`Claude Code returned an error result: ${detail}`);
}

export type { ApiFailure, MessageParam };
