/**
 * Step 14 of the pipeline: error classification and telemetry. `classifyToolError()` turns anything a tool threw into
 * a short, stable string that is safe to send to analytics — an errno code, a stable error name, a tool error class —
 * and never the raw message (messages carry paths, file contents, secrets). The event sink is optional and off by
 * default; its events are shaped like OpenTelemetry log records (name + flat attributes).
 */

/** An error whose `telemetryMessage` was written to be logged; the only kind whose text may reach telemetry. */
export class TelemetrySafeError extends Error {
  override readonly name: string = 'TelemetrySafeError';
  constructor(
    message: string,
    readonly telemetryMessage: string,
  ) {
    super(message);
  }
}

/** The pipeline's own failure classes: stable identifiers, one per exit path that is not a thrown error. */
export const TOOL_ERROR_CLASSES = {
  unknownTool: 'unknown_tool',
  aborted: 'aborted',
  inputValidation: 'input_validation',
  deferredNotLoaded: 'deferred_tool_not_loaded',
  validateInput: 'validate_input',
  hookBlocked: 'hook_blocked',
  hookDeferred: 'hook_deferred',
  hookStopped: 'hook_stopped',
  permissionDenied: 'permission_denied',
  resultBudget: 'result_budget',
  resultMapping: 'result_mapping',
  siblingCancelled: 'sibling_cancelled',
  interrupted: 'user_interrupted',
  discarded: 'streaming_fallback',
  toolError: 'tool_error',
  invalidBlock: 'invalid_block',
  duplicateId: 'duplicate_tool_use_id',
} as const;

const STABLE_NAME = /^[A-Z][A-Za-z0-9]{2,63}$/;
const STABLE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
const SAFE_TELEMETRY = /^[\w .:/-]{1,120}$/;

/**
 * A telemetry-safe description of `error`. Order of preference: a `TelemetrySafeError`'s own telemetry text, then
 * `Name:CODE` when the error carries an errno-style code (`Error:ENOENT`), then a stable error name (`TypeError`,
 * `ShellError`, `AbortError`). Minified class names (`e`, `Qx`) are not stable and are reported as `Error`; values
 * that are not errors at all are reported by their type (`non_error:string`).
 */
export function classifyToolError(error: unknown): string {
  try {
    return classify(error);
  } catch {
    return 'Error'; // a hostile object (a throwing getter or proxy) is still an error to count
  }
}

function classify(error: unknown): string {
  if (error instanceof TelemetrySafeError && SAFE_TELEMETRY.test(error.telemetryMessage)) {
    return `${stableName(error)}:${error.telemetryMessage}`;
  }
  if (error === null || (typeof error !== 'object' && typeof error !== 'function')) {
    return `non_error:${error === null ? 'null' : typeof error}`;
  }
  const name = stableName(error);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && STABLE_CODE.test(code)) return `${name}:${code}`;
  if (typeof code === 'number' && Number.isInteger(code)) return `${name}:${code}`;
  return name;
}

function stableName(error: object): string {
  let name: unknown;
  try {
    name = (error as { name?: unknown }).name;
  } catch {
    return 'Error';
  }
  if (typeof name === 'string' && STABLE_NAME.test(name)) return name;
  return error instanceof Error ? 'Error' : 'non_error:object';
}

/** The text of an error for the model (not for telemetry): its message, or a readable stand-in. */
export function errorMessageForModel(error: unknown): string {
  if (error instanceof Error) {
    const message = error.message.length > 0 ? error.message : '(no message)';
    const name = STABLE_NAME.test(error.name) ? error.name : 'Error';
    return name === 'Error' ? message : `${name}: ${message}`;
  }
  if (typeof error === 'string') return error;
  try {
    return `Non-error thrown: ${String(error)}`;
  } catch {
    return 'Non-error thrown';
  }
}

/**
 * The events of the telemetry sink. The pipeline sends `tool.*` (start, the permission decision, the end with its
 * sizes and duration); the agent loop sends `session.start`, `user.prompt`, `model.request` and `model.error`.
 */
export type ToolEventName = 'tool.start' | 'tool.decision' | 'tool.end' | 'session.start' | 'user.prompt' | 'model.request' | 'model.error';

/** One event, OpenTelemetry-friendly: a name, a timestamp and flat scalar attributes (`tool.name`, `tool.outcome`…). */
export interface ToolEvent {
  readonly name: ToolEventName;
  readonly timeUnixMs: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /**
   * Content — a prompt's text, a tool's input, an error's message — present only when the sink's `content` asks for
   * that kind: what is never asked for is never built, let alone sent.
   */
  readonly detail?: Readonly<Record<string, unknown>>;
}

/**
 * Receives pipeline and loop events. Throwing from `emit` is ignored: telemetry must never change what a call does.
 * This is the whole of telemetry below the agent layer: no OpenTelemetry module is imported here or by the pipeline;
 * `src/agent/telemetry/` implements the sink with OpenTelemetry, and `createToolRuntime` wires it.
 */
export interface ToolEventSink {
  emit(event: ToolEvent): void;
  /** Which content the sink was switched on for (as Claude Code's `OTEL_LOG_USER_PROMPTS`, `OTEL_LOG_TOOL_DETAILS`). */
  readonly content?: { readonly prompts?: boolean; readonly toolDetails?: boolean };
}

declare module '../tool/tool-use-context.js' {
  interface ToolServices {
    /** The telemetry sink, when telemetry is on: the executor's pipeline and the agent loop report to it. */
    readonly telemetry?: ToolEventSink;
  }
}

export function emitToolEvent(
  sink: ToolEventSink | undefined,
  name: ToolEventName,
  attributes: Record<string, string | number | boolean | undefined>,
  detail?: Readonly<Record<string, unknown>>,
): void {
  if (!sink) return;
  const flat: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) flat[key] = value;
  try {
    sink.emit(detail === undefined ? { name, timeUnixMs: Date.now(), attributes: flat } : { name, timeUnixMs: Date.now(), attributes: flat, detail });
  } catch {
    // A broken exporter is not the tool call's problem.
  }
}
