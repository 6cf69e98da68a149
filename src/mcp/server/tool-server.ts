/**
 * toolgate's tools as an MCP server, with the permission engine in front: every `tools/call` is one tool_use run
 * through `createToolRuntime` (rules, hooks, sandbox and mode of `--cwd`'s settings), so an MCP client gets exactly
 * what the agent loop gets — including refusals that name the rule that would allow the call.
 *
 * - A call that needs a person asks the client through elicitation when it supports it; otherwise it is refused,
 *   naming the rule to add.
 * - Progress events become `notifications/progress` (when the client sent a progress token); `notifications/cancelled`
 *   aborts the run.
 * - Calls run side by side only when every running call is concurrency-safe, as the executor runs one message's calls.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import type { PermissionAnswer, RuntimePermissionRequest, ToolRuntime, ToolRuntimeOptions } from '../../agent/types.js';
import path from 'node:path';
import { createToolRuntime } from '../../agent/create-tool-runtime.js';
import { defaultSessionDir } from '../../agent/session-dir.js';
import type { AnyTool, ToolResultBlockParam, ToolUseBlock } from '../../tool/tool.js';
import { ConcurrencyGate, isCallConcurrencySafe } from '../../execution/concurrency.js';
import type { ToolUseOutcome } from '../../execution/outcome.js';
import { prepareToolUse } from '../../execution/prepared-tool-use.js';
import { permissionTraitsOf } from '../../permissions/tool-traits.js';
import { describePreview } from '../../permissions/preview.js';
import { describeRisk } from '../../permissions/risk.js';
import { randomUUID } from '../../tool/crypto.js';
import { addSharedAbortListener } from '../../tool/shared-abort-listener.js';
import { createLinkedAbortController } from '../../tool/tool-use-context.js';
import { TOOLGATE_VERSION } from '../../tool/version.js';

/**
 * Tools that only make sense inside a conversation with a model (they steer the loop, not the machine), or that move
 * the served session's directory under every client at once (the worktree tools).
 */
const CONVERSATION_ONLY_TOOLS: ReadonlySet<string> = new Set(['AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'ToolSearch', 'Agent', 'TodoWrite', 'Skill', 'EnterWorktree', 'ExitWorktree']);

/** The project (`cwd`), mode and runtime options the MCP server runs its calls with. */
export interface ToolServerOptions {
  readonly cwd?: string;
  readonly mode?: ToolRuntimeOptions['mode'];
  /** Passed to the runtime as they are (settings sources, session dir, extra rules…). */
  readonly runtime?: Omit<ToolRuntimeOptions, 'cwd' | 'mode' | 'onPermissionRequest'>;
}

/** How one MCP request's permission prompt reaches its client: elicitation, when the client declared it. */
export interface ClientAsker {
  readonly request: (params: { message: string; requestedSchema: Record<string, unknown> }, signal: AbortSignal) => Promise<{ action: string; content?: Record<string, unknown> }>;
  readonly canElicit: () => boolean;
}

/** What a server object for one client is told about that client's connection. */
export interface ClientConnection {
  /**
   * Aborted when the client can no longer answer (stdio: its input ended): no permission question is put to it any
   * more, and one waiting for its answer is refused.
   */
  readonly inputEnded?: AbortSignal;
}

/** The tool pool as an MCP server: each `tools/call` is one tool_use run through `createToolRuntime`. */
export class ToolgateMcpServer {
  private readonly gate = new ConcurrencyGate();
  /** Aborted by `interruptCalls`: every call running or waiting for its turn ends, and is answered as interrupted. */
  private readonly stopping = new AbortController();
  private counter = 0;
  private definitionsCache?: Promise<McpToolDefinition[]>;

  private constructor(readonly runtime: ToolRuntime) {}

  static async create(options: ToolServerOptions = {}): Promise<ToolgateMcpServer> {
    const sessionId = options.runtime?.sessionId ?? randomUUID();
    const sessionDir = path.resolve(options.runtime?.sessionDir ?? defaultSessionDir(sessionId));
    const rules = options.runtime?.rules;
    const runtime = await createToolRuntime({
      ...options.runtime,
      sessionId,
      sessionDir,
      // Persisted outputs are read back in pages with Read: the session's own folder is readable without asking.
      rules: { ...rules, allow: [...(rules?.allow ?? []), `Read(/${sessionDir}/**)`] },
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.mode !== undefined ? { mode: options.mode } : {}),
      // No runtime-wide prompt handler: each request brings its own (the client that sent it is the one to ask).
    });
    return new ToolgateMcpServer(runtime);
  }

  /** The tools served: the runtime's pool, minus the ones that steer a conversation. */
  exposedTools(): AnyTool[] {
    return this.runtime.tools.filter((t) => !CONVERSATION_ONLY_TOOLS.has(t.name));
  }

  /** `tools/list`: Claude Code's names and input schemas; annotations from the tools' own traits. */
  listTools(): Promise<McpToolDefinition[]> {
    this.definitionsCache ??= this.runtime.definitions().then((defs) => {
      const exposed = new Map(this.exposedTools().map((t) => [t.name, t]));
      return defs
        .filter((d) => exposed.has(d.name))
        .map((d) => {
          const tool = exposed.get(d.name)!;
          return {
            name: d.name,
            description: d.description ?? '',
            inputSchema: d.input_schema as McpToolDefinition['inputSchema'],
            annotations: { title: safe(() => tool.userFacingName(), d.name), ...annotationsOf(tool) },
          };
        });
    });
    return this.definitionsCache;
  }

  /** One MCP server object for one client session (stdio: the only one; HTTP: one per session). */
  createServer(connection: ClientConnection = {}): Server {
    const server = new Server({ name: 'toolgate', version: TOOLGATE_VERSION }, { capabilities: { tools: {} }, jsonSchemaValidator: new LazyAjvValidator() });
    const { inputEnded } = connection;
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const id = `toolu_mcp_${(++this.counter).toString(36)}_${Date.now().toString(36)}`;
      const asker: ClientAsker = {
        canElicit: () => inputEnded?.aborted !== true && server.getClientCapabilities()?.elicitation !== undefined,
        // A question the client can no longer answer (its input ended while it was asked) is withdrawn: refused.
        request: async (params, signal) => {
          const { controller, unlink } = createLinkedAbortController(signal);
          const unhear = inputEnded ? addSharedAbortListener(inputEnded, () => controller.abort(new Error('the client closed its input'))) : () => {};
          try {
            return (await server.elicitInput({ mode: 'form', ...params } as Parameters<Server['elicitInput']>[0], { signal: controller.signal })) as { action: string; content?: Record<string, unknown> };
          } finally {
            unhear();
            unlink();
          }
        },
      };
      const progressToken = extra._meta?.progressToken;
      let step = 0;
      // Without a token the client did not ask for progress: none is made.
      const onProgress =
        progressToken === undefined
          ? undefined
          : (message: string) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } }).catch(() => {});
      return this.call(request.params.name, request.params.arguments ?? {}, id, extra.signal, onProgress, asker);
    });
    return server;
  }

  /**
   * One call through the runtime: exactly one result, errors as `isError` (an unknown tool name: a JSON-RPC error). Its permission prompts go to `asker` (the
   * client that sent it), through the run's own handler; without one they are refused, naming the rule.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    id: string,
    requestSignal: AbortSignal,
    onProgress?: (message: string) => void,
    asker?: ClientAsker,
  ): Promise<CallToolResult> {
    const tool = this.exposedTools().find((t) => t.name === name);
    // A name the server does not serve is a protocol error, not a tool's failure: the spec's example and Claude Code's
    // `claude mcp serve` answer it with JSON-RPC -32602.
    // (A plain Error with the code: McpError would put its "MCP error -32602:" prefix into the message on the wire.)
    if (!tool) throw Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
    const block = { type: 'tool_use', id, name, input: args } as ToolUseBlock;
    // The request's own cancellation, or the server interrupting every call (interruptCalls).
    const { controller, unlink } = createLinkedAbortController(requestSignal);
    const stop = this.stopping.signal;
    const unstop = stop.aborted ? (controller.abort(stop.reason), () => {}) : addSharedAbortListener(stop, () => controller.abort(stop.reason));
    const signal = controller.signal;
    let release: (() => void) | undefined;
    try {
      // The executor's rule across requests: the call prepared as the executor prepares it, judged once its analysis is there.
      const prepared = prepareToolUse(block, this.runtime.tools);
      // The analysis can take a while (the first shell command loads its parser): a call cancelled meanwhile (its
      // client went away) is answered now, not after it.
      const safe = prepared.kind === 'call' ? await unlessAborted(isCallConcurrencySafe(prepared.call), signal) : false;
      release = signal.aborted ? undefined : await this.gate.enter(safe !== true, signal);
      if (!release) return { content: [{ type: 'text', text: 'The call was cancelled before it started.' }], isError: true };
      let outcome: ToolUseOutcome | undefined;
      // Progress only for a client that asked for it (a progress token): otherwise the tools are not asked for any.
      const run = this.runtime.stream([block], { signal, onPermissionRequest: (request) => this.askPerson(request, asker), ...(onProgress ? {} : { progress: false }) });
      for await (const event of run) {
        if (event.type === 'progress') onProgress?.(progressText(event.progress.data));
        else if (event.type === 'done') outcome = event.result.outcomes[0];
      }
      return outcome ? toCallToolResult(outcome.result, outcome.mcpMeta) : { content: [{ type: 'text', text: 'The call produced no result.' }], isError: true };
    } finally {
      release?.();
      unstop();
      unlink();
    }
  }

  /**
   * Interrupts every call running or waiting for its turn, as a client's cancellation would — except that each is still
   * answered (its result says it was interrupted). Calls that arrive afterwards are interrupted at once.
   */
  interruptCalls(reason: string): void {
    this.stopping.abort(new Error(reason));
  }

  /**
   * Ends every background task (Bash `run_in_background`, with what its commands detached) now, without waiting for
   * `dispose()` — which first gives interrupted calls their time to answer. Later tasks end as they start.
   */
  async endBackgroundTasks(): Promise<void> {
    await this.runtime.endBackgroundTasks().catch(() => undefined);
  }

  /** A call's permission prompt: elicitation when its client can, otherwise a refusal naming the rule. */
  private async askPerson(request: RuntimePermissionRequest, call: ClientAsker | undefined): Promise<PermissionAnswer> {
    const rule = request.suggestedRules[0];
    const why = request.ask.message;
    if (!call || !call.canElicit()) {
      const hint = rule ? ` To allow it, add ${JSON.stringify(rule)} to permissions.allow in ${this.runtime.cwd}/.claude/settings.json (or run with --permission-mode).` : '';
      return { behavior: 'deny', message: `${why}. The MCP client cannot ask the person (it does not support elicitation), so the call was refused.${hint}` };
    }
    // A destructive call's "for this session" takes a second step, as in the terminal dialog: a second form confirms it.
    const destructive = request.risk?.destructive === true;
    const choices = ['Allow once', ...(rule ? [`Allow ${rule} for this session${destructive ? ' (destructive: asks to confirm)' : ''}`] : []), 'Deny'];
    const details = [request.risk !== undefined ? describeRisk(request.risk) : undefined, request.preview !== undefined ? describePreview(request.preview) : undefined].filter((d) => d !== undefined);
    let answer: { action: string; content?: Record<string, unknown> };
    try {
      answer = await call.request(
        {
          message: `toolgate: ${why}\n\nInput: ${JSON.stringify(request.input).slice(0, 1_000)}${details.length > 0 ? `\n\n${details.join('\n\n')}` : ''}`,
          requestedSchema: { type: 'object', properties: { decision: { type: 'string', title: 'Decision', enum: choices } }, required: ['decision'] },
        },
        request.signal,
      );
      if (destructive && rule && answer.action === 'accept' && answer.content?.decision === choices[1]) {
        const confirm = [`Yes, allow every call ${rule} matches for this session, without asking`, 'No, allow this call once', 'Deny'];
        const second = await call.request(
          {
            message: `toolgate: this call is destructive. Allow every call ${rule} matches for the rest of this session, without asking?`,
            requestedSchema: { type: 'object', properties: { decision: { type: 'string', title: 'Decision', enum: confirm } }, required: ['decision'] },
          },
          request.signal,
        );
        const picked = second.action === 'accept' ? second.content?.decision : undefined;
        answer = picked === confirm[0] ? answer : picked === confirm[1] ? { action: 'accept', content: { decision: 'Allow once' } } : second.action === 'accept' ? { action: 'accept', content: { decision: 'Deny' } } : second;
      }
    } catch (error) {
      return { behavior: 'deny', message: `${why}. Asking the person through the MCP client failed (${error instanceof Error ? error.message : String(error)}), so the call was refused.` };
    }
    const decision = answer.action === 'accept' ? answer.content?.decision : undefined;
    if (decision === 'Allow once') return { behavior: 'allow', scope: 'once' };
    if (typeof decision === 'string' && rule && decision === choices[1]) return { behavior: 'allow', scope: 'session', rules: [rule] };
    // Only an accepted form carries a choice someone made; a decline or cancel may be the client's own (many decline
    // every elicitation unasked), so the message says what the client answered, not that a person refused.
    if (answer.action === 'accept') return { behavior: 'deny', message: `${why}. "Deny" was chosen in the MCP client's approval form, so the call was refused.` };
    return { behavior: 'deny', message: `${why}. The MCP client ${answer.action === 'cancel' ? 'cancelled' : 'declined'} the approval request (a client may do so without asking anyone), so the call was refused.` };
  }

  async dispose(): Promise<void> {
    await this.runtime.dispose();
  }
}

/** A tool_result as MCP content: text stays text, images go as image content, errors keep their flag. */
export function toCallToolResult(block: ToolResultBlockParam, meta?: ToolUseOutcome['mcpMeta']): CallToolResult {
  const content: CallToolResult['content'] = [];
  if (typeof block.content === 'string') content.push({ type: 'text', text: block.content });
  else {
    for (const part of block.content ?? []) {
      if (part.type === 'text') content.push({ type: 'text', text: part.text });
      else if (part.type === 'image' && part.source.type === 'base64') content.push({ type: 'image', data: part.source.data, mimeType: part.source.media_type });
      else content.push({ type: 'text', text: `[${part.type} content not representable over MCP]` });
    }
  }
  // The JSON copy of a structured result that the model's side added (mcp/result.ts) is dropped when the client gets
  // the structured result itself and the tool's own content says the rest; alone, it stays (a client that reads only
  // content — the spec's backwards-compatible copy — then still has the result).
  if (meta?.structuredContent !== undefined && content.length > 1) {
    const copy = JSON.stringify(meta.structuredContent);
    const without = content.filter((c) => c.type !== 'text' || c.text !== copy);
    if (without.length > 0) content.splice(0, content.length, ...without);
  }
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  // An MCP tool's structured result and metadata pass through (redacted like the result: execution/outcome.ts).
  const extra = { ...(meta?.structuredContent !== undefined ? { structuredContent: meta.structuredContent } : {}), ...(meta?._meta !== undefined ? { _meta: meta._meta } : {}) };
  return block.is_error === true ? { content, isError: true, ...extra } : { content, ...extra };
}

/**
 * MCP's tool annotations from what the tool declares (its permission traits, then its own answers), not its name: a
 * shell reaches anything (destructive, open world), a fetch only reads the open world, reads and searches only read
 * here, writes change files. A tool that declares nothing is read-only only if it says so, and otherwise may destroy.
 */
export function annotationsOf(tool: AnyTool): { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean } {
  switch (permissionTraitsOf(tool).kind) {
    case 'shell':
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
    case 'fetch':
      return { readOnlyHint: true, destructiveHint: false, openWorldHint: true };
    case 'read':
    case 'search':
      return { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
    case 'write':
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
    case 'other': {
      const readOnly = safe(() => tool.isReadOnly({}), false);
      return { readOnlyHint: readOnly, destructiveHint: !readOnly, openWorldHint: false };
    }
  }
}

/** `promise`'s value, or undefined as soon as `signal` aborts (the promise runs on, unheard). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const unhear = addSharedAbortListener(signal, () => resolve(undefined));
    promise.then(
      (value) => (unhear(), resolve(value)),
      (error: unknown) => (unhear(), reject(error instanceof Error ? error : new Error(String(error)))),
    );
  });
}

function progressText(data: Record<string, unknown>): string {
  for (const key of ['message', 'line', 'output', 'text']) {
    const v = data[key];
    if (typeof v === 'string' && v.length > 0) return `${String(data.type)}: ${v.slice(-200)}`;
  }
  return String(data.type);
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/**
 * The SDK's Ajv validator, made when a schema first needs it (an elicitation's answer is checked against the form it
 * asked for): the SDK's server makes one per server object, and building Ajv with its formats was ~3 ms of every
 * `mcp serve` start, for a check most sessions never make.
 */
class LazyAjvValidator implements jsonSchemaValidator {
  #ajv: AjvJsonSchemaValidator | undefined;
  getValidator<T>(schema: JsonSchemaType) {
    this.#ajv ??= new AjvJsonSchemaValidator();
    return this.#ajv.getValidator<T>(schema);
  }
}
