/**
 * The Tool contract: a structural type every tool satisfies — built-in, MCP or generated at run time. No class
 * hierarchy: any object with these members is a tool. Build one with `buildTool()`, which fills fail-closed defaults.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ReactNode } from 'react';
import type * as z from 'zod';
import type { PermissionDecision, PermissionPreview, PermissionResult, ToolPermissionContext } from './permission-types.js';
import type { ToolServices, ToolSettings, ToolUseContext } from './tool-use-context.js';

export type ToolResultBlockParam = Anthropic.Messages.ToolResultBlockParam;
export type ToolUseBlock = Anthropic.Messages.ToolUseBlock;
export type ToolUseBlockParam = Anthropic.Messages.ToolUseBlockParam;
export type MessageParam = Anthropic.Messages.MessageParam;
export type APIToolDefinition = Anthropic.Messages.Tool;

/** Any Zod object schema (strict, loose or stripping). */
export type AnyObject = z.ZodObject<any, any>;

/** The assistant message a tool_use block came from (SDK param shape; `id` when the API gave one). */
export type AssistantMessage = MessageParam & { readonly role: 'assistant'; readonly id?: string };

/** A JSON Schema with an object root, as MCP servers describe their tools. */
export interface ToolInputJSONSchema {
  [key: string]: unknown;
  type: 'object';
  properties?: Record<string, unknown>;
}

/** What a tool reports while it runs; `type` names the kind (e.g. `bash_output`, `grep_matches`). */
export interface ToolProgressData {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** One progress report of a running call, tagged with its tool_use id. */
export interface ToolProgress<P extends ToolProgressData = ToolProgressData> {
  readonly toolUseID: string;
  readonly data: P;
}

export type ToolCallProgress<P extends ToolProgressData = ToolProgressData> = (progress: ToolProgress<P>) => void;

/** What a tool's `call()` returns: its typed output, and optionally messages to add and a change to the context. */
export interface ToolResult<T> {
  /** The typed output, serialised by `mapToolResultToToolResultBlockParam`. */
  data: T;
  /** Messages appended to the conversation after the tool_result (transcripts, reminders). */
  newMessages?: MessageParam[];
  /** How this tool changes the context of the tools after it. Queued until the batch ends for concurrent tools. */
  contextModifier?: (context: ToolUseContext) => ToolUseContext;
  /** MCP protocol metadata passed through untouched. */
  mcpMeta?: { _meta?: Record<string, unknown>; structuredContent?: Record<string, unknown> };
  /**
   * This result is the tool's own answer to a user interrupt: what it did before it stopped, saying it was cut short
   * (Bash's output so far and "aborted before completion"). The executor hands it to the model instead of its
   * generic interruption answer, which would lose that output.
   */
  interrupted?: boolean;
}

/** Semantic validation beyond the schema: `result: false` becomes an `is_error` tool_result with `message`. */
export type ValidationResult = { result: true } | { result: false; message: string; errorCode?: number };

/** The permission gate a tool may consult for nested calls (the Agent tool does). */
export type CanUseToolFn = (
  tool: AnyTool,
  input: Record<string, unknown>,
  context: ToolUseContext,
  assistantMessage: AssistantMessage,
  toolUseID: string,
  forceDecision?: PermissionDecision,
) => Promise<PermissionDecision>;

/** What a tool's prompt and description functions may look at. */
export interface PromptOptions {
  readonly getToolPermissionContext: () => ToolPermissionContext;
  readonly tools: Tools;
  readonly model?: string;
  /** The settings the tool runs with, when the caller has them (a prompt may describe a setting's effect). */
  readonly settings?: ToolSettings;
  /** The session's services, for a tool whose description depends on the session (the Agent tool's agent list). */
  readonly services?: ToolServices;
}

/**
 * What a call does, as the permission engine and the executor need to know it — declared by the tool, so MCP and
 * custom tools get the same treatment as built-ins (lower layers never test a tool's name).
 * - `shell`: runs the string in `commandField` as a Bash command (Bash rules, the command analyser, sandboxing).
 * - `read` / `write`: touches the path in `pathField` (Read / Edit rules, working directories, protected paths).
 * - `search`: reads the directory in `pathField` (and the fixed base of the glob in `patternField`).
 * - `fetch`: reaches the URL in `urlField` (`domain:` rules).
 * - `other`: whole-tool rules, and `contentField` for `Tool(content)` rules (Agent: subagent_type).
 */
export interface PermissionTraits {
  readonly kind: 'shell' | 'read' | 'write' | 'search' | 'fetch' | 'other';
  /**
   * Whole-tool deny and ask rules naming this other tool cover this one too (Monitor: `Bash` — a session that denies
   * Bash gets no Monitor). Allow rules stay the tool's own (fail closed). A shell tool's command is already judged by
   * Bash's deny and ask rules as well as its own.
   */
  readonly alsoDeniedAs?: string;
  readonly commandField?: string;
  readonly pathField?: string;
  readonly urlField?: string;
  readonly patternField?: string;
  readonly contentField?: string;
}

export type McpInfo = { readonly serverName: string; readonly toolName: string };

/** Where a tool's views are drawn. */
export interface ToolRenderOptions {
  /** Columns the view may use (the terminal's width minus the UI's indent). */
  readonly columns: number;
  /** Show everything (a transcript view) instead of the short form. */
  readonly verbose: boolean;
  /** The session's working directory, so views can show paths relative to it. */
  readonly cwd: string;
}

/** A tool's views for an interactive terminal; any member left out falls back to the plain-text method of its name. */
export interface ToolViews<Input = Record<string, unknown>, Output = unknown, P extends ToolProgressData = ToolProgressData> {
  /** The call's arguments, drawn after the tool's name while the input streams and after. */
  renderToolUseMessage?(input: Partial<Input>, options: ToolRenderOptions): ReactNode;
  /** While the call runs: the progress reported so far (oldest first) and the time since it started. */
  renderToolUseProgressMessage?(progress: readonly P[], options: ToolRenderOptions & { readonly elapsedMs: number }): ReactNode;
  /** The finished call: its typed output, the progress it reported and the input it ran with. */
  renderToolResultMessage?(
    output: Output,
    progress: readonly P[],
    options: ToolRenderOptions & { readonly input: Partial<Input> },
  ): ReactNode;
  /** What the permission dialog shows about the call besides its arguments (an edit's diff, a command in full). */
  renderPermissionPreview?(input: Partial<Input>, options: ToolRenderOptions): ReactNode;
}

/** The tool contract: any object with these members is a tool (built-in, MCP or yours); make one with `buildTool`. */
export type Tool<Input extends AnyObject = AnyObject, Output = unknown, P extends ToolProgressData = ToolProgressData> = {
  /** The name the model calls the tool by: canonical, matched by permission rules and hook matchers. */
  readonly name: string;
  /** Former names still accepted from old transcripts (`Task` → `Agent`). */
  readonly aliases?: readonly string[];
  /** 3–10 words that help ToolSearch find a deferred tool. */
  readonly searchHint?: string;
  /** Validates input at run time and, converted to JSON Schema, tells the model the parameters. */
  readonly inputSchema: Input;
  /** Given instead of a Zod schema by MCP tools: sent to the API as it is. */
  readonly inputJSONSchema?: ToolInputJSONSchema;
  /** Results longer than this are persisted to disk and replaced by a preview (`Infinity`: the tool bounds itself). */
  readonly maxResultSizeChars: number;
  /** The shape of `Output`, when the tool declares it: a PostToolUse hook's `updatedToolOutput` is checked against it. */
  readonly outputSchema?: z.ZodType<Output>;
  /** Sent with `defer_loading: true`: the model must load the schema through ToolSearch first. */
  readonly shouldDefer?: boolean;
  /** Never deferred. */
  readonly alwaysLoad?: boolean;
  /** Ask the API for strict schema validation (only where the model supports it). */
  readonly strict?: boolean;
  /** Example inputs, sent only when the input-examples beta is on. */
  readonly inputExamples?: readonly Record<string, unknown>[];
  readonly mcpInfo?: McpInfo;
  readonly isMcp?: boolean;
  /**
   * The tool may run in a background (async) agent: it needs no person in front of the session (no questions, no
   * dialog of its own), leaves the foreground's state alone and works on its own call's input. Absent: it is left out
   * of background agents' pools (fail closed — a tool that does not say so is not given to them).
   */
  readonly asyncSafe?: boolean;

  /** The text the model reads about the tool (the API `description`). */
  prompt(options: PromptOptions): Promise<string>;
  call(
    args: z.infer<Input>,
    context: ToolUseContext,
    canUseTool: CanUseToolFn,
    parentMessage: AssistantMessage,
    onProgress?: ToolCallProgress<P>,
  ): Promise<ToolResult<Output>>;
  validateInput?(input: z.infer<Input>, context: ToolUseContext): Promise<ValidationResult>;
  /** Tool-specific objections only; the general engine (rules, modes, prompts) decides around it. */
  checkPermissions(input: z.infer<Input>, context: ToolUseContext): Promise<PermissionResult<z.infer<Input>>>;
  /**
   * What the call will do, prepared only when a person (or a host) is about to be asked: shown with the question, and
   * handed back to `call()` (`context.approvedPreview`) when approved, so what was approved is what happens. Undefined:
   * nothing to show beyond the input. Bounded in time by the gate; a failure counts as no preview.
   */
  permissionPreview?(input: z.infer<Input>, context: ToolUseContext): Promise<PermissionPreview | undefined>;
  isConcurrencySafe(input: z.infer<Input>): boolean;
  isReadOnly(input: z.infer<Input>): boolean;
  isDestructive(input: z.infer<Input>): boolean;
  /**
   * Whether this call may simply run again when a crash left it unknown whether its first run finished (a durable
   * backend's worker died mid-call): running twice has the effect of running once, or the second run refuses by
   * itself (an edit that checks the file's content hash against what was read). Absent: only read-only calls are.
   * A call that is not safe is answered with an error that says it may or may not have happened, never re-run.
   */
  isRetrySafe?(input: z.infer<Input>): boolean;
  isEnabled(): boolean;
  /**
   * What a user interrupt does while this call runs: `cancel` it (default) or let it finish (`block`). The seeds make
   * it tool-level; toolgate passes the parsed input too, so a tool may decide per call (Bash: `git commit`, an install).
   */
  interruptBehavior?(input: z.infer<Input>): 'cancel' | 'block';
  /** Compact text for an automatic safety classifier; '' skips the classifier for this tool. */
  toAutoClassifierInput(input: z.infer<Input>): string;
  mapToolResultToToolResultBlockParam(output: Output, toolUseID: string): ToolResultBlockParam;
  userFacingName(input?: Partial<z.infer<Input>>): string;
  /** Plain text for a UI while the call streams or runs. */
  renderToolUseMessage(input: Partial<z.infer<Input>>): string;
  renderToolResultMessage?(output: Output): string;
  /**
   * The rich views (React nodes for Ink) an interactive UI draws this tool with. A loader, so a headless process
   * (`exec`, the library, the MCP server) never loads React or Ink; the plain-text methods above stay its rendering.
   */
  loadViews?(): Promise<ToolViews<z.infer<Input>, Output, P>>;
  /** Adds derived fields to the observable clone that hooks and permissions see (e.g. absolute paths). */
  backfillObservableInput?(input: Record<string, unknown>, context: ToolUseContext): void;
  /** The file or folder this call touches, for path rules (file tools). */
  getPath?(input: z.infer<Input>): string | undefined;
  /** Lines this call's output added and removed (file-editing tools), for telemetry's lines-of-code count. */
  linesChanged?(output: Output): { readonly added: number; readonly removed: number } | undefined;
  /** What kind of action the tool takes and which input fields say where (see PermissionTraits). */
  readonly permissionTraits?: PermissionTraits;
  /**
   * This tool is a way to wait without holding a shell: until a condition holds (a watched command) or for a time.
   * A shell tool points a model that starts a command with a long sleep to whichever of them the pool has.
   */
  readonly waitsFor?: 'condition' | 'time';
};

/** A tool of unknown input and output, as registries and executors hold them. */
export type AnyTool = Tool<AnyObject, any, any>;
/** A tool pool. */
export type Tools = readonly AnyTool[];
