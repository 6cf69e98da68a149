/**
 * What one tool call produces, whatever path it took through the pipeline: exactly one `tool_result`, the messages
 * that follow it, an optional context modifier, and enough about the path (stage, error class, decision) for the
 * executor, a UI and telemetry — without ever re-reading raw error messages.
 */
import type { PermissionDecision } from '../tool/permission-types.js';
import { errorToolResult, unwrappedErrorToolResult } from '../tool/tool-result.js';
import type { AnyTool, MessageParam, ToolResultBlockParam } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import type { ToolEventSink } from './errors.js';
import type { SecretRedactor } from './redaction.js';
import { printableName } from './messages.js';
import { emitEndEvent } from './telemetry-events.js';

export { telemetryToolName } from './telemetry-events.js';

/** Where a call ended. `completed`: `call()` ran and its result (error or not) is the tool's own. */
export type ToolUseStage = 'lookup' | 'abort' | 'validation' | 'hook' | 'permission' | 'call' | 'budget' | 'completed' | 'executor';

/** What happened to one tool call: its tool_result block, whether it failed and at which stage, its decision and output. */
export interface ToolUseOutcome {
  readonly toolUseId: string;
  /** The canonical name of the tool that ran, or the (sanitised) name the model asked for when there was none. */
  readonly toolName: string;
  readonly tool?: AnyTool;
  /** The one tool_result for this tool_use id. */
  readonly result: ToolResultBlockParam;
  readonly isError: boolean;
  /** Messages for the model after the tool_result: hook context, the tool's own `newMessages`, notifications. */
  readonly newMessages: readonly MessageParam[];
  /** Messages for a person, not the model: hooks' `systemMessage`s, hooks that failed without blocking. */
  readonly userNotices: readonly string[];
  readonly contextModifier?: (context: ToolUseContext) => ToolUseContext;
  readonly stage: ToolUseStage;
  /** Telemetry-safe class of the failure (`classifyToolError` or a `TOOL_ERROR_CLASSES` value). */
  readonly errorClass?: string;
  readonly decision?: PermissionDecision;
  /** A hook said `continue: false`: the agent loop should stop after this turn. */
  readonly preventContinuation?: { readonly stopReason?: string };
  /** A PreToolUse hook deferred the call (`defer`): it did not run; a caller may resume it later. */
  readonly deferred?: boolean;
  /** The input `call()` ran with (after hook and permission updates); absent when it never ran. */
  readonly input?: Record<string, unknown>;
  /** Where an oversized result was saved. */
  readonly persistedPath?: string;
  /** The typed output `call()` returned (after a PostToolUse hook's accepted update), for a UI's result view. */
  readonly output?: unknown;
  /** The tool's result answers a user interrupt itself (`ToolResult.interrupted`): the executor keeps it. */
  readonly interrupted?: boolean;
  /** MCP protocol metadata of the result (`_meta`, `structuredContent`), redacted, for the faces that pass it on. */
  readonly mcpMeta?: { readonly _meta?: Record<string, unknown>; readonly structuredContent?: Record<string, unknown> };
  readonly durationMs: number;
}

type Extras = Partial<
  Pick<ToolUseOutcome, 'contextModifier' | 'decision' | 'preventContinuation' | 'deferred' | 'input' | 'persistedPath' | 'output' | 'mcpMeta' | 'interrupted'>
>;

/** Collects what a call produces along the way and seals it into one outcome (and one `tool.end` event). */
export class OutcomeBuilder {
  readonly newMessages: MessageParam[] = [];
  readonly userNotices: string[] = [];
  tool: AnyTool | undefined;
  /** Applied to the one result on its way out: no path (an error message included) carries a known secret. */
  redactor: SecretRedactor | undefined;
  /** Run once when the outcome is sealed, whichever path got there (the pipeline ends an early classification). */
  beforeSeal: (() => void) | undefined;

  constructor(
    readonly toolUseId: string,
    /** The name the model asked for: anything at all, made printable only if no tool answers to it. */
    private readonly requestedName: unknown,
    private readonly started: number,
    private readonly sink: ToolEventSink | undefined,
  ) {}

  get toolName(): string {
    return this.tool?.name ?? printableName(this.requestedName);
  }

  /** An `is_error` result with `<tool_use_error>` around `message` (`unwrapped`: the message alone, as the tool asked). */
  fail(stage: ToolUseStage, message: string, errorClass: string, extras: Extras = {}, unwrapped = false): ToolUseOutcome {
    return this.seal(unwrapped ? unwrappedErrorToolResult(this.toolUseId, message) : errorToolResult(this.toolUseId, message), stage, errorClass, extras);
  }

  seal(result: ToolResultBlockParam, stage: ToolUseStage, errorClass: string | undefined, extras: Extras = {}): ToolUseOutcome {
    if (this.beforeSeal !== undefined) {
      const end = this.beforeSeal;
      this.beforeSeal = undefined;
      try {
        end();
      } catch {
        // cleanup only: the call's answer does not depend on it
      }
    }
    const redactor = this.redactor;
    let newMessages: readonly MessageParam[] = this.newMessages;
    let userNotices: readonly string[] = this.userNotices;
    if (redactor !== undefined) {
      // The result, and everything else that reaches the model or a person: a tool's newMessages, hook context.
      result = redactor.redactBlock(result);
      if (newMessages.length > 0) newMessages = newMessages.map((m) => redactor.redactMessage(m));
      if (userNotices.length > 0) userNotices = userNotices.map((n) => redactor.redactText(n));
    }
    const isError = result.is_error === true;
    const durationMs = performance.now() - this.started;
    // Every field written out, one fixed shape: spreading objects of varying shapes here cost microseconds per call.
    const outcome: ToolUseOutcome = {
      toolUseId: this.toolUseId,
      toolName: this.toolName,
      tool: this.tool,
      result: result.tool_use_id === this.toolUseId ? result : { ...result, tool_use_id: this.toolUseId },
      isError,
      newMessages,
      userNotices,
      contextModifier: extras.contextModifier,
      stage,
      errorClass,
      decision: extras.decision,
      preventContinuation: extras.preventContinuation,
      deferred: extras.deferred,
      input: extras.input,
      persistedPath: extras.persistedPath,
      output: extras.output,
      interrupted: extras.interrupted,
      mcpMeta: extras.mcpMeta !== undefined && redactor !== undefined ? redactor.redactJson(extras.mcpMeta) : extras.mcpMeta,
      durationMs,
    };
    if (this.sink) {
      emitEndEvent(this.sink, {
        tool: this.tool,
        toolUseId: this.toolUseId,
        result: outcome.result,
        isError,
        stage,
        errorClass,
        durationMs,
        persisted: extras.persistedPath !== undefined,
        input: extras.input,
        output: extras.output,
      });
    }
    return outcome;
  }
}
