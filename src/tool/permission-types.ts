/**
 * The permission vocabulary shared by every layer. The engine that decides lives in `src/permissions/`; the types
 * live here, at the bottom, because a tool's `checkPermissions` returns them and every context carries them.
 */
import type { DeepImmutable } from './deep-immutable.js';

/** Every permission mode, for validating one given as text. */
export const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'bypassPermissions',
  'auto',
  'bubble',
] as const;
/** How the engine treats calls no rule decides (Claude Code's modes: `default`, `acceptEdits`, `plan`, …). */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** What a rule says, or what was decided: allow, deny or ask. */
export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/** Where a rule came from, highest precedence first (`session` rules are added at run time). */
export const PERMISSION_RULE_SOURCES = [
  'policySettings',
  'flagSettings',
  'cliArg',
  'localSettings',
  'projectSettings',
  'userSettings',
  'session',
] as const;
/** Where a rule came from: a settings file by scope, the command line, or the session. */
export type PermissionRuleSource = (typeof PERMISSION_RULE_SOURCES)[number];

/** `Bash(npm test:*)` → `{ toolName: 'Bash', ruleContent: 'npm test:*' }`; `WebFetch` → `{ toolName: 'WebFetch' }`. */
export interface PermissionRuleValue {
  readonly toolName: string;
  readonly ruleContent?: string;
}

/** A parsed permission rule with its behaviour and source (and file), as the engine holds it. */
export interface PermissionRule {
  readonly source: PermissionRuleSource;
  readonly ruleBehavior: PermissionBehavior;
  readonly ruleValue: PermissionRuleValue;
  /** The settings file the rule was read from, so a decision can name it. */
  readonly sourceFile?: string;
  /** The folder `/path` patterns of this rule are anchored at (default: decided by the engine from the source). */
  readonly root?: string;
  /**
   * An ISO date after which the engine ignores this rule (allow rules only; toolgate's extension, written as
   * `permissions.expires` beside the rule in the settings file).
   */
  readonly expiresAt?: string;
}

/** Where a granted rule is kept: this session only, or one of the writable settings files. */
export type PermissionUpdateDestination = 'session' | 'localSettings' | 'projectSettings' | 'userSettings';

/**
 * A change to the permission state, in the shape of a PermissionRequest hook's `updatedPermissions` entries (and the
 * runtime's "allow with a rule" answer). `expiresAt` (addRules, allow only) is toolgate's extension.
 */
export type PermissionUpdate =
  | {
      readonly type: 'addRules' | 'replaceRules' | 'removeRules';
      readonly rules: readonly PermissionRuleValue[];
      readonly behavior: PermissionBehavior;
      readonly destination: PermissionUpdateDestination;
      readonly expiresAt?: string;
    }
  | { readonly type: 'setMode'; readonly mode: PermissionMode; readonly destination: PermissionUpdateDestination }
  | { readonly type: 'addDirectories' | 'removeDirectories'; readonly directories: readonly string[]; readonly destination: PermissionUpdateDestination };

export interface AdditionalWorkingDirectory {
  readonly path: string;
  readonly source: PermissionRuleSource;
}

/**
 * Everything the permission engine needs besides the tool, the input and filesystem facts. Deeply immutable: a
 * change is a new context.
 */
export type ToolPermissionContext = DeepImmutable<{
  mode: PermissionMode;
  /** The mode to return to when plan mode ends. */
  prePlanMode?: PermissionMode;
  /** The working directory relative paths resolve against (absolute). */
  cwd: string;
  /**
   * Where a shell tool's command starts, when the session's shell has moved (`cd` carries over: AppState.cwd, always
   * inside the working directories): the command's relative paths resolve against it. Set by the engine for the one
   * decision (resolve.ts); the working directories are still `cwd` and the additional ones. Absent: `cwd`.
   */
  shellCwd?: string;
  /** The project root `/path` rules of project and local settings are anchored at (absolute). */
  projectDir: string;
  /** What `~` expands to; the engine uses `os.homedir()` when absent. */
  homeDir?: string;
  additionalWorkingDirectories: ReadonlyMap<string, AdditionalWorkingDirectory>;
  alwaysAllowRules: readonly PermissionRule[];
  alwaysDenyRules: readonly PermissionRule[];
  alwaysAskRules: readonly PermissionRule[];
  isBypassPermissionsModeAvailable: boolean;
  /** Background and headless runs: whatever would prompt is denied instead. */
  shouldAvoidPermissionPrompts?: boolean;
  /**
   * Auto mode can be switched on in this session (a classifier is configured and no settings file disables it): the
   * interactive session's Shift+Tab cycle offers it.
   */
  isAutoModeAvailable?: boolean;
  /**
   * Ceilings on automatic allows (a skill's or command's `allowed-tools` while it is active in an agent's turn): an
   * allow of that agent's call stands only where one of its ceilings' rules covers the call; otherwise the call asks.
   * They never allow anything themselves. See `src/permissions/allow-ceiling.ts`.
   */
  allowCeilings?: readonly AllowCeiling[];
}>;

/** One active ceiling: whose calls it narrows, what set it, and the rules (allow rules, never consulted as grants). */
export interface AllowCeiling {
  /** The agent whose calls it narrows (`undefined`: the main thread). */
  readonly agentId?: string;
  /** What set it, for the decision's trace (`skill "deploy"`). */
  readonly label: string;
  readonly rules: readonly PermissionRule[];
}

/** The layer of the resolution chain that settled a decision. */
export type DecisionLayer =
  | 'hook'
  | 'denyRule'
  | 'askRule'
  | 'toolCheck'
  | 'safetyCheck'
  | 'allowRule'
  | 'readOnly'
  | 'mode'
  | 'classifier'
  | 'prompt';

/** Why a decision came out as it did: the layer, the rule and where it was written, and for Bash the subcommand. */
export interface DecisionTrace {
  readonly layer: DecisionLayer;
  readonly reason: string;
  readonly rule?: string;
  readonly source?: PermissionRuleSource;
  readonly sourceFile?: string;
  readonly subcommand?: string;
  /** Safety checks only: whether an automatic classifier may approve what this check asked about. */
  readonly classifierApprovable?: boolean;
  /** An expired allow rule that would have allowed this call (it was ignored). */
  readonly expiredRule?: string;
  /**
   * The ask is a plain lack of permission (no rule allows reading or writing this path, or using this tool; no check
   * found anything): a denial for want of anyone to approve says so to the model in Claude Code's words.
   */
  readonly notGranted?: { readonly access: 'read' | 'write' | 'use'; readonly what: string };
  /**
   * `prompt` layer: what the person answered — allowed for this call (`once`), for the session, with a rule written
   * to a settings file (`permanent`), refused (`reject`), or the prompt withdrawn by an interrupt (`abort`).
   */
  readonly answer?: 'once' | 'session' | 'permanent' | 'reject' | 'abort';
  /** Auto mode: what the classifier said about this call (or why it was not asked), with its stage and cost. */
  readonly classifier?: ClassifierTrace;
}

/** Token counts of the classifier's model calls, as the Messages API reports them. */
export interface ClassifierUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

/**
 * The auto-mode classifier's part in a decision. `allow`/`deny`: its verdict decided; `unavailable`: it gave none (a
 * timeout, an API error, a refusal, an answer it could not read, still unsure at its last stage) and the call went to
 * a person, or was denied headless; `skipped`: it was not asked (`reason` says why: an ask rule, a safety check it may
 * not approve, a tool that gives it nothing, the denial limits, no classifier); `unused`: a speculative classification
 * that finished but was not needed (its tokens were still spent).
 */
export interface ClassifierTrace {
  readonly outcome: 'allow' | 'deny' | 'unavailable' | 'skipped' | 'unused';
  readonly reason: string;
  /** 1: the fast model; 2: the model with extended thinking (stage one was unsure). */
  readonly stage?: 1 | 2;
  /** The model(s) asked, stage one first. */
  readonly models?: readonly string[];
  /** Tokens of every stage together. */
  readonly usage?: ClassifierUsage;
  /** What the calls cost, in dollars (0 for a model outside the price table). */
  readonly costUsd?: number;
  readonly durationMs?: number;
  /** The classification started early (pipeline step 5), in parallel with hooks and validation. */
  readonly speculative?: boolean;
}

export interface PermissionAllowDecision<I = Record<string, unknown>> {
  readonly behavior: 'allow';
  /** The input to run with, when a layer (a hook, the user) changed it. */
  readonly updatedInput?: I;
  readonly decisionReason?: DecisionTrace;
  readonly userModified?: boolean;
  /** Permission changes that come with this approval (a PermissionRequest hook's `updatedPermissions`). */
  readonly updatedPermissions?: readonly PermissionUpdate[];
  /**
   * Set by the permission gate alone, on an approval at the prompt: the preview the tool prepared for it (what the
   * person or the host judged). The tool's `call()` gets it back (`ToolUseContext.approvedPreview`) and does exactly
   * that, or refuses when the world no longer matches it.
   */
  readonly approvedPreview?: PermissionPreview;
  /**
   * From a tool's own check: the call runs inside the OS sandbox (`sandbox.autoAllowBashIfSandboxed`), so the engine
   * may allow it where it would otherwise ask only because it could not prove the call read-only. Deny and ask rules,
   * safety checks and modes still decide first.
   */
  readonly sandboxAutoAllow?: boolean;
}

export interface PermissionAskDecision {
  readonly behavior: 'ask';
  readonly message: string;
  readonly decisionReason?: DecisionTrace;
  /** Rules that would allow this call if added (shown to a user, named in headless denials). */
  readonly suggestions?: readonly PermissionRuleValue[];
}

export interface PermissionDenyDecision {
  readonly behavior: 'deny';
  readonly message: string;
  readonly decisionReason: DecisionTrace;
}

/** The engine's answer for one call: allow (possibly with an updated input), ask, or deny, each with its trace. */
export type PermissionDecision<I = Record<string, unknown>> =
  | PermissionAllowDecision<I>
  | PermissionAskDecision
  | PermissionDenyDecision;

/** A tool's own check may also say "no opinion", leaving the decision to the general engine. */
export interface PermissionPassthrough {
  readonly behavior: 'passthrough';
  readonly message?: string;
  readonly decisionReason?: DecisionTrace;
  readonly suggestions?: readonly PermissionRuleValue[];
}

/** What a tool's `checkPermissions` returns: a decision, or `passthrough` to leave it to the engine. */
export type PermissionResult<I = Record<string, unknown>> = PermissionDecision<I> | PermissionPassthrough;

/** A fresh, empty context: default mode, no rules, the given directory as cwd and project root. */
export function getEmptyToolPermissionContext(cwd: string = process.cwd()): ToolPermissionContext {
  return {
    mode: 'default',
    cwd,
    projectDir: cwd,
    additionalWorkingDirectories: new Map(),
    alwaysAllowRules: [],
    alwaysDenyRules: [],
    alwaysAskRules: [],
    isBypassPermissionsModeAvailable: false,
  };
}

/** One hunk of a preview's diff (the `diff` package's `structuredPatch` shape). */
export interface PermissionPreviewHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly string[];
}

/**
 * What a call will do, prepared by its tool before a person is asked (`Tool.permissionPreview`): a `sed -i` the
 * Bash tool can simulate is shown as the edit it makes. `data` is the tool's own record, handed back to its `call()`
 * when the call is approved; nothing outside the tool reads it.
 */
export interface PermissionPreview {
  /** One line: what the call does ("edits src/a.ts"). */
  readonly summary: string;
  /** The file it changes (absolute). */
  readonly filePath?: string;
  /** The change, when it is an edit. */
  readonly hunks?: readonly PermissionPreviewHunk[];
  readonly data: unknown;
}

/** How risky a call the engine asks about is (`permissions/risk.ts` decides it from the tool's traits). */
export type PermissionRiskLevel = 'read-only' | 'writes-in-project' | 'writes-outside-project' | 'network' | 'runs-code' | 'destructive';

export interface PermissionRisk {
  readonly level: PermissionRiskLevel;
  /** The tool says this call may do what cannot be undone (delete, overwrite, send). */
  readonly destructive: boolean;
  /** The level in words, for a dialog or a host's `description`. */
  readonly summary: string;
}
