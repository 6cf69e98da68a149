/**
 * The engine-neutral half of running `call()` on another process: what crosses the wire (a `RemoteToolCall` in, a
 * `RemoteToolResult` out, both plain JSON), how the coordinator builds the one from a `ToolCallRequest`, and how a
 * worker turns it back into a `tool.call()` with a context of its own. A durable engine (Restate here; DBOS or
 * Temporal the same way) only has to move these two values and keep the promise that a call that completed is never
 * run again: it implements `DurableToolEngine`.
 *
 * Everything before `call()` (validation, hooks, the permission decision) has happened on the coordinator by the time
 * a `RemoteToolCall` exists, and everything after it (result budget, PostToolUse hooks) happens there again: a worker
 * never decides anything, it runs what it is given.
 */
import path from 'node:path';
import os from 'node:os';
import { FileStateCache, type FileReadRecord } from '../tool/file-state-cache.js';
import { findToolByName } from '../tool/find-tool.js';
import { PathChecks } from '../tool/path-checks.js';
import type { AdditionalWorkingDirectory, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool, MessageParam, ToolProgressData, Tools } from '../tool/tool.js';
import { createToolUseContext, type ToolSettings, type ToolUseContext } from '../tool/tool-use-context.js';

/** The permission context as JSON (its one Map as entries). */
export type SerializedPermissionContext = Omit<ToolPermissionContext, 'additionalWorkingDirectories'> & {
  readonly additionalWorkingDirectories: readonly (readonly [string, AdditionalWorkingDirectory])[];
};

export interface RemoteToolCall {
  readonly sessionId: string;
  readonly toolUseId: string;
  readonly tool: string;
  /** The decided input (after hook and permission updates). */
  readonly input: Record<string, unknown>;
  /** The shell's current directory on the coordinator: the worker must see the same path (see docs/distributed.md). */
  readonly cwd: string;
  readonly permissionContext: SerializedPermissionContext;
  readonly settings: ToolSettings;
  /** What the model has read of the file this call touches (`getPath`), for read-before-write and staleness. */
  readonly fileState?: { readonly path: string; readonly record: FileReadRecord };
  /** Where the worker may post progress (best effort); absent when nobody listens. */
  readonly progressUrl?: string;
  /**
   * Whether the call may run again after a crash cut its first run off (`isRetrySafe`), judged once by the coordinator
   * — which has validated the call and loaded what the judgement needs (the Bash parser) — and never again on a worker.
   * A durable worker branches on it before its first journaled step, so every attempt must see the same value: it is
   * part of the call, stored with the invocation. Absent means not retry-safe (fail closed).
   */
  readonly retrySafe?: boolean;
  /**
   * What the coordinator's decision resolved each path of the call to (src/tool/path-checks.ts): the worker's tool
   * binds what it opens to it, as a local call does (docs/security.md §2). Absent: the call was judged for no path.
   */
  readonly pathChecks?: readonly (readonly [string, string | null])[];
}

export type RemoteToolResult =
  | {
      readonly ok: true;
      readonly data: unknown;
      readonly newMessages?: MessageParam[];
      /** The file state of the touched path after the call (a Read records it, an Edit updates it). */
      readonly fileState?: { readonly path: string; readonly record: FileReadRecord };
      /** The shell's directory after the call, when the call moved it (`cd` in Bash). */
      readonly cwd?: string;
      /** Set when the worker had to run this call again after an earlier attempt was cut off (retry-safe tools only). */
      readonly rerun?: boolean;
      /** The tool's result answers a user interrupt itself (`ToolResult.interrupted`: Bash's output so far). */
      readonly userInterrupted?: boolean;
      readonly worker?: string;
    }
  | {
      readonly ok: false;
      readonly error: { readonly message: string; readonly name?: string; readonly code?: string };
      /** A worker died mid-call and the tool is not safe to run twice: it may or may not have had its effect. */
      readonly interrupted?: boolean;
      readonly worker?: string;
    };

/** What a durable engine provides: submit a call under its idempotency key and wait for its one result. */
export interface DurableToolEngine {
  readonly name: string;
  /**
   * Runs the call on some worker, durably: submitting the same `idempotencyKey` again returns the first result and
   * never runs the call again. `signal` cancels the call (best effort on the worker; the returned promise rejects,
   * unless the tool's own answer to the cancellation comes back soon: Bash's output so far, marked interrupted).
   */
  submit(call: RemoteToolCall, options: { readonly idempotencyKey: string; readonly signal: AbortSignal }): Promise<RemoteToolResult>;
  close?(): Promise<void>;
}

/** `sessionId/toolUseId`: the same tool_use in the same session is one call, however often it is submitted. */
export function idempotencyKeyOf(sessionId: string, toolUseId: string): string {
  return `${sessionId}/${toolUseId}`;
}

/** Whether a call may run again after a crash left its first run unfinished or unknown (the tool's trait). */
export function isRetrySafe(tool: AnyTool, input: Record<string, unknown>): boolean {
  try {
    if (typeof tool.isRetrySafe === 'function') return Boolean(tool.isRetrySafe(input));
    return Boolean(tool.isReadOnly(input));
  } catch {
    return false; // fail closed: unsure means "do not run it twice"
  }
}

export function serializePermissionContext(context: ToolPermissionContext): SerializedPermissionContext {
  return { ...context, additionalWorkingDirectories: [...context.additionalWorkingDirectories.entries()] };
}

export function deserializePermissionContext(context: SerializedPermissionContext): ToolPermissionContext {
  return { ...context, additionalWorkingDirectories: new Map(context.additionalWorkingDirectories) };
}

/** Records keep their text (for stale-file diffs) only while it is small; the hash is what the checks use. */
const MAX_SHIPPED_CONTENT_CHARS = 100_000;

function portableRecord(record: FileReadRecord): FileReadRecord {
  if (record.content === undefined || record.content.length <= MAX_SHIPPED_CONTENT_CHARS) return record;
  return { ...record, content: undefined };
}

function touchedPath(tool: AnyTool, input: Record<string, unknown>, cwd: string): string | undefined {
  try {
    const p = tool.getPath?.(input);
    return typeof p === 'string' && p.length > 0 ? path.resolve(cwd, p) : undefined;
  } catch {
    return undefined;
  }
}

/** The coordinator side: the wire form of a decided call. */
export function toRemoteToolCall(
  tool: AnyTool,
  input: Record<string, unknown>,
  toolUseId: string,
  context: ToolUseContext,
  progressUrl?: string,
): RemoteToolCall {
  const state = context.getAppState();
  const file = touchedPath(tool, input, state.cwd);
  const record = file ? context.readFileState.get(file) : undefined;
  return {
    sessionId: context.options.sessionId,
    toolUseId,
    tool: tool.name,
    input,
    cwd: state.cwd,
    permissionContext: serializePermissionContext(state.toolPermissionContext),
    settings: context.options.settings,
    fileState: file && record ? { path: file, record: portableRecord(record) } : undefined,
    progressUrl,
    retrySafe: isRetrySafe(tool, input),
    ...(context.pathChecks ? { pathChecks: context.pathChecks.toJSON() } : {}),
  };
}

/** The coordinator side, after the call: what the worker learned goes back into this session's context. */
export function applyRemoteEffects(result: Extract<RemoteToolResult, { ok: true }>, context: ToolUseContext): void {
  if (result.fileState) context.readFileState.set(result.fileState.path, result.fileState.record);
  const cwd = result.cwd;
  if (cwd !== undefined && cwd !== context.getAppState().cwd) context.setAppState((s) => ({ ...s, cwd }));
}

export interface ExecuteRemoteOptions {
  /** The tools this worker can run (by name or alias). */
  readonly tools: Tools;
  /** The workspace roots this worker serves; a call whose cwd is outside all of them is refused. */
  readonly workspaces: readonly string[];
  readonly signal: AbortSignal;
  /**
   * The controller behind `signal`, when the caller made it for this call alone: the tool's context then uses it as
   * is, instead of a second controller that follows `signal` through a listener (one of each per call, on the path of
   * every remote call).
   */
  readonly abortController?: AbortController;
  readonly onProgress?: (data: ToolProgressData) => void;
  /** Where this worker keeps per-session files (default: the system temp dir). */
  readonly stateDir?: string;
  readonly workerName?: string;
}

export function findWorkerTool(tools: Tools, name: string): AnyTool | undefined {
  return findToolByName(tools, name);
}

export function servesWorkspace(workspaces: readonly string[], cwd: string): boolean {
  const target = path.resolve(cwd);
  return workspaces.some((root) => {
    const rel = path.relative(path.resolve(root), target);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/** The worker side: runs the decided call with a context built from the wire form. Never throws. */
export async function executeRemoteToolCall(call: RemoteToolCall, options: ExecuteRemoteOptions): Promise<RemoteToolResult> {
  const worker = options.workerName;
  const tool = findWorkerTool(options.tools, call.tool);
  if (!tool) return { ok: false, error: { message: `The worker ${worker ?? ''} has no tool named ${call.tool}; nothing was run.`.replace('  ', ' ') }, worker };
  if (!servesWorkspace(options.workspaces, call.cwd)) {
    return { ok: false, error: { message: `The worker ${worker ?? ''} does not serve the workspace ${call.cwd}; nothing was run.`.replace('  ', ' ') }, worker };
  }
  // One call touches one file: a small cache (the default one sizes itself for a session, and costs more to make).
  const readFileState = new FileStateCache({ maxEntries: 16 });
  if (call.fileState) readFileState.set(call.fileState.path, call.fileState.record);
  const own = options.abortController !== undefined && options.abortController.signal === options.signal;
  const abortController = own ? options.abortController! : new AbortController();
  const onAbort = () => abortController.abort(options.signal.reason);
  if (!own) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  const sessionDir = path.join(options.stateDir ?? defaultStateDir(), safeSegment(call.sessionId));
  const context = createToolUseContext({
    tools: options.tools,
    permissionContext: deserializePermissionContext(call.permissionContext),
    cwd: call.cwd,
    sessionDir,
    sessionId: call.sessionId,
    settings: call.settings,
    isNonInteractiveSession: true,
    abortController,
    readFileState,
  });
  // The coordinator's record of what was judged: the tool binds what it opens here to it (opened-file.ts).
  const bound = Array.isArray(call.pathChecks) ? { ...context, pathChecks: PathChecks.fromJSON(call.pathChecks) } : context;
  try {
    const output = await tool.call(call.input, bound, denyNestedCalls, { role: 'assistant', content: [] }, (progress) => {
      options.onProgress?.(progress.data);
    });
    if (output === null || typeof output !== 'object') throw new TypeError(`${tool.name} returned no result`);
    const file = touchedPath(tool, call.input, call.cwd);
    const record = file ? readFileState.get(file) : undefined;
    const cwd = context.getAppState().cwd;
    return {
      ok: true,
      data: output.data,
      newMessages: Array.isArray(output.newMessages) && output.newMessages.length > 0 ? output.newMessages : undefined,
      userInterrupted: output.interrupted === true ? true : undefined,
      fileState: file && record ? { path: file, record: portableRecord(record) } : undefined,
      cwd: cwd !== call.cwd ? cwd : undefined,
      worker,
    };
  } catch (error) {
    const e = error as { message?: unknown; name?: unknown; code?: unknown } | undefined;
    return {
      ok: false,
      error: {
        message: typeof e?.message === 'string' ? e.message : String(error),
        name: typeof e?.name === 'string' ? e.name : undefined,
        code: typeof e?.code === 'string' ? e.code : undefined,
      },
      worker,
    };
  } finally {
    if (!own) options.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * One settings object per distinct settings content, for settings that arrived as JSON (a worker's calls: no function
 * or other value JSON drops can be in them, so equal text is equal settings). Each call arrives as a fresh object, and
 * what is cached per settings object (the secret redactor, built from the whole environment: redaction.ts) was rebuilt
 * for every call. Keyed on the exact serialised settings — every value in them, `env` and `baseEnv` included — so
 * calls whose settings differ in anything, one secret's value say, never share an object (docs/security.md, "Settings
 * interned on workers"). Settings that name secret files are not interned: their redactor reads those files, which
 * may change between calls.
 */
const interned = new Map<string, ToolSettings>();
const MAX_INTERNED_SETTINGS = 64;

export function internSettings(settings: ToolSettings): ToolSettings {
  if (settings === null || typeof settings !== 'object' || (settings.redaction?.secretFiles?.length ?? 0) > 0) return settings;
  const key = JSON.stringify(settings);
  const known = interned.get(key);
  if (known !== undefined) return known;
  if (interned.size >= MAX_INTERNED_SETTINGS) interned.delete(interned.keys().next().value!);
  interned.set(key, settings);
  return settings;
}

let stateDir: string | undefined;
function defaultStateDir(): string {
  return (stateDir ??= path.join(os.tmpdir(), 'toolgate-worker'));
}

/** A worker has no one to ask: a tool that wants to make a nested call gets a refusal. */
const denyNestedCalls: Parameters<AnyTool['call']>[2] = async () => ({
  behavior: 'deny',
  message: 'Nested tool calls are not available on a toolgate worker.',
  decisionReason: { layer: 'toolCheck', reason: 'remote worker' },
});

function safeSegment(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120) || 'session';
}
