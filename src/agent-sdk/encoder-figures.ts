/**
 * The figures Claude Code's lines carry beyond the loop's own result (test/parity/cli/stream-json.json, docs/cli.md
 * "stream-json keys"), kept by the one encoder (encoder.ts) as the events pass: when a turn's first request went out
 * and its response's first event, content frame and token came (measured where the loop received them, model-step.ts),
 * the API messages begun, the model usage since the last result, the results numbered, the sub-agents and the safety
 * stops of the session; and per tool result, the permission decision behind it (`tool_result_meta`). Nothing but the
 * encoder calls these.
 */
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { ModelUsageTotals, ResponseTiming } from '../agent/types.js';
import { modelUsage } from './encoder-fields.js';
import type { ModelUsage } from './messages.js';

/** Milliseconds since the epoch, to the fraction (the clock the loop stamps its events with). */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** Fast mode: toolgate has none, and a `-p` run of Claude Code without the SDK's opt-in reports it off for that reason. */
export const FAST_MODE = { fast_mode_state: 'off', fast_mode_disabled_reason: 'sdk_opt_in_required' } as const;

interface SubagentStats {
  spawned: number;
  requested: { background: number; foreground: number; unset: number };
  started_in_background: number;
  max_depth: number;
  spawned_by_subagents: number;
  completed: number;
  failed: number;
  killed: { parent: number; user: number; system: number };
  refused: { depth_limit: number; concurrency_limit: number; budget: number };
  by_type: Record<string, number>;
}

function emptyStats(): SubagentStats {
  return {
    spawned: 0,
    requested: { background: 0, foreground: 0, unset: 0 },
    started_in_background: 0,
    max_depth: 0,
    spawned_by_subagents: 0,
    completed: 0,
    failed: 0,
    killed: { parent: 0, user: 0, system: 0 },
    refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
    by_type: {},
  };
}

export class TurnFigures {
  /** Where this turn's times count from: its start (where its `duration_ms` counts from). */
  #origin = epochNow();
  #requestedAt: number | undefined;
  #timing: ResponseTiming | undefined;
  #begun: string[] = [];
  #resultIndex = 0;
  #usageAtLastResult: Readonly<Record<string, ModelUsageTotals>> = {};
  #safetyStops = 0;
  readonly #subagents = emptyStats();

  turnStarted(): void {
    this.#origin = epochNow();
    this.#requestedAt = undefined;
    this.#timing = undefined;
    this.#begun = [];
  }

  requesting(at: number | undefined): void {
    this.#requestedAt ??= at ?? epochNow();
  }

  /** A main-thread response's block: the first one of the turn gives the turn's first-token figures. */
  block(timing: ResponseTiming | undefined): void {
    this.#timing ??= timing;
  }

  /** A partial message began (stream-json with partial messages lists them: `begun_message_ids`). */
  messageBegun(id: string): void {
    if (!this.#begun.includes(id)) this.#begun.push(id);
  }

  responseStopped(stopReason: string | null): void {
    if (stopReason === 'refusal') this.#safetyStops++;
  }

  subagentStarted(input: Record<string, unknown> | undefined, update: { readonly isAsync: boolean; readonly depth: number }, agentType: string): void {
    const s = this.#subagents;
    s.spawned++;
    const asked = input?.run_in_background;
    s.requested[asked === true ? 'background' : asked === false ? 'foreground' : 'unset']++;
    if (update.isAsync) s.started_in_background++;
    s.max_depth = Math.max(s.max_depth, update.depth);
    if (update.depth > 1) s.spawned_by_subagents++;
    s.by_type[agentType] = (s.by_type[agentType] ?? 0) + 1;
  }

  /** A sub-agent stopped before it finished was stopped by the session it serves (toolgate does not tell who asked). */
  subagentEnded(result: { readonly isError: boolean; readonly stopReason: string }): void {
    const s = this.#subagents;
    if (result.stopReason === 'aborted') s.killed.parent++;
    else if (result.isError) s.failed++;
    else s.completed++;
  }

  /**
   * The result's keys beyond the loop's (`usage`: the session's model usage so far), and apart its times, which only a
   * success that got its answers carries (Claude Code's error results and API failures have none). `begun`: list the
   * API messages begun (`claude -p` does with partial messages; the Agent SDK's messages do not).
   */
  resultFields(usage: Readonly<Record<string, ModelUsageTotals>>, options: { readonly maxOutputTokens: number; readonly queued: number; readonly begun: boolean }): { readonly fields: Record<string, unknown>; readonly times: Record<string, number> } {
    const since = (at: number) => Math.max(0, Math.round(at - this.#origin));
    const timed = (key: string, at: number | undefined) => (at === undefined ? {} : { [key]: since(at) });
    const t = this.#timing;
    const times = {
      ...timed('time_to_request_ms', this.#requestedAt),
      ...timed('ttft_stream_ms', t?.firstEventAt),
      ...timed('first_content_frame_ms', t?.firstContentAt),
      ...timed('ttft_ms', t?.firstTokenAt),
    };
    const fields = {
      ...FAST_MODE,
      subagent_stats: structuredClone(this.#subagents),
      safety_stops: this.#safetyStops,
      queued_turn_count: options.queued,
      result_index: this.#resultIndex++,
      ...(options.begun && this.#begun.length > 0 ? { begun_message_ids: [...this.#begun] } : {}),
      model_usage_since_last_result: modelUsage(usageSince(usage, this.#usageAtLastResult), options.maxOutputTokens) satisfies Record<string, ModelUsage>,
    };
    this.#usageAtLastResult = usage;
    return { fields, times };
  }
}

function usageSince(now: Readonly<Record<string, ModelUsageTotals>>, then: Readonly<Record<string, ModelUsageTotals>>): Record<string, ModelUsageTotals> {
  const out: Record<string, ModelUsageTotals> = {};
  for (const [model, t] of Object.entries(now)) {
    const b = then[model];
    if (b === undefined) {
      out[model] = t;
      continue;
    }
    if (t.requests === b.requests) continue;
    const u = t.usage;
    const v = b.usage;
    out[model] = {
      requests: t.requests - b.requests,
      costUsd: t.costUsd - b.costUsd,
      usage: {
        ...u,
        input_tokens: u.input_tokens - v.input_tokens,
        output_tokens: u.output_tokens - v.output_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens - v.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens - v.cache_read_input_tokens,
      },
    };
  }
  return out;
}

/**
 * The permission decision behind a tool result, in Claude Code's words (recorded from 2.1.332: an allow rule, a mode
 * or a read the mode allows, a hook's answer, a deny rule — `subcommandResults` for a Bash subcommand's —, and a call
 * refused for want of anyone to approve it). A call answered at a prompt (`canUseTool`) or by auto mode's classifier
 * is said as a person's or the classifier's answer; a call that never reached the permission check has no entry.
 */
export function toolResultMeta(outcome: ToolUseOutcome): Record<string, unknown>[] | undefined {
  const decision = outcome.decision;
  const trace = decision?.decisionReason;
  if (decision === undefined || decision.behavior === 'ask' || trace === undefined) return undefined;
  const accept = decision.behavior === 'allow';
  const id = outcome.toolUseId;
  const of = (source: string, reasonType?: string) => ({ decision: accept ? 'accept' : 'reject', source, ...(reasonType !== undefined ? { reason_type: reasonType } : {}) });
  const meta = (kind: string, permission: Record<string, unknown>) => [{ id, ...(accept ? {} : { non_execution_kind: kind }), permission_decision: permission }];
  switch (trace.layer) {
    case 'hook':
      return meta('permission-rule', of('hook', 'hook'));
    case 'allowRule':
    case 'denyRule':
      // A rule for the whole tool is a rule; one with content that a command's subcommand matched is said as the
      // command's subcommand results.
      return meta('permission-rule', of('config', trace.subcommand !== undefined && trace.rule?.includes('(') === true ? 'subcommandResults' : 'rule'));
    case 'mode':
    case 'readOnly':
      return meta('permission-rule', of('config', 'mode'));
    case 'classifier':
      return meta('classifier', of('classifier', 'classifier'));
    case 'prompt':
      if (trace.answer !== undefined) return meta('user-rejected', of('user'));
      return meta('user-rejected', of('config'));
    default:
      // A tool's own check that allowed (a read inside the working folders: Claude Code's mode allows it), or an ask
      // rule, a tool's check or a safety check that nobody could answer: refused as a headless run does.
      return accept ? meta('', of('config', 'mode')) : meta('user-rejected', of('config'));
  }
}
