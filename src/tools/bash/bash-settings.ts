/**
 * The Bash tool's limits and settings. Typed settings are added to `ToolSettings` by module augmentation (the
 * contract stays ignorant of them). Environment variables are read once, at module load, because
 * `maxResultSizeChars` is a static property of the tool.
 */
import type { ToolSettings } from '../../tool/tool-use-context.js';

/** Claude Code's `sandbox` settings key, as far as toolgate implements it (`ToolSettings.sandbox`). */
export interface SandboxSettings {
  /** Run Bash commands inside the OS sandbox (Linux: bubblewrap + socat through @anthropic-ai/sandbox-runtime). */
  readonly enabled?: boolean;
  /**
   * A command that would ask only because it cannot be proven read-only runs sandboxed without asking (default true,
   * as in Claude Code). Deny and ask rules, safety checks and `dangerouslyDisableSandbox` still decide as before.
   */
  readonly autoAllowBashIfSandboxed?: boolean;
  /** Commands (first words, e.g. `docker`, `git push`) that run outside the sandbox and are never auto-allowed. */
  readonly excludedCommands?: readonly string[];
  /**
   * Legacy toolgate key: `true` leaves the network unfiltered inside the sandbox. Without it the network reaches only
   * the domains `network.allowedDomains` and `WebFetch(domain:…)` allow rules name, through a filtering proxy.
   */
  readonly allowNetwork?: boolean;
  /** When the sandbox is enabled but cannot run: refuse the command (default true) or run it unsandboxed with a note. */
  readonly failIfUnavailable?: boolean;
  /** Accept `dangerouslyDisableSandbox: true` (after permission). Default true. */
  readonly allowUnsandboxedCommands?: boolean;
  readonly network?: {
    /** Hosts reachable from inside (`example.com`, `*.example.com`, optional `:port`), besides WebFetch allow rules. */
    readonly allowedDomains?: readonly string[];
    /** Hosts never reachable (wins over the allowed ones), besides WebFetch deny rules. */
    readonly deniedDomains?: readonly string[];
  };
  readonly filesystem?: {
    /** Extra absolute paths writable inside the sandbox, besides the working directories and the session temp folder. */
    readonly allowWrite?: readonly string[];
    /** Paths not writable even inside a writable directory. */
    readonly denyWrite?: readonly string[];
    /** Paths unreadable inside the sandbox, besides those of Read deny rules (absolute, `~/…`, or globs). */
    readonly denyRead?: readonly string[];
  };
}

/** The Bash tool's settings (`toolgate.bash` in settings files; `ToolSettings.bash`): timeouts, background tasks, the child's environment, output limits. */
export interface BashToolSettings {
  /** Foreground default timeout in ms (default 120,000). */
  readonly defaultTimeoutMs?: number;
  /** Foreground maximum timeout in ms (default 600,000). */
  readonly maxTimeoutMs?: number;
  /** Turn background tasks off: `run_in_background` is refused and a timeout kills instead of backgrounding. */
  readonly disableBackgroundTasks?: boolean;
  /** Environment variable names (glob `*`, case-insensitive) removed from the child environment. Replaces the default list. */
  readonly secretEnvPatterns?: readonly string[];
  /** Names passed through even though a secret pattern matches them (e.g. `GH_TOKEN` for `gh`). */
  readonly passEnv?: readonly string[];
  /** A command whose output file grows beyond this is killed (default 5 GiB). */
  readonly maxOutputFileBytes?: number;
  /** How often a running command's output file is checked for progress and size (default 500 ms). */
  readonly progressIntervalMs?: number;
  /** SIGTERM → SIGKILL grace when a command is ended (default 300 ms). */
  readonly killGraceMs?: number;
  /**
   * Exported variables and functions a command leaves behind are the next command's starting point, as the working
   * directory is (default true; `false`: every command starts from the runtime's environment). See session-env.ts.
   */
  readonly persistEnvironment?: boolean;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    /** Inline size of Bash output in characters (Claude Code's key; clamped 4,000–128,000). */
    readonly bashOutputMaxChars?: number;
    /** OS sandbox for Bash (Claude Code's `sandbox` key; the subset toolgate implements). */
    readonly sandbox?: SandboxSettings;
    readonly bash?: BashToolSettings;
  }
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** With `run_in_background`, `timeout` bounds the task's lifetime instead. */
export const BACKGROUND_DEFAULT_LIFETIME_MS = 1_800_000;
export const BACKGROUND_MAX_LIFETIME_MS = 7_200_000;

export const MIN_OUTPUT_CHARS = 4_000;
export const MAX_OUTPUT_CHARS = 128_000;
export const DEFAULT_OUTPUT_CHARS = 30_000;
/** A failing command's output is an excerpt of at most this many characters (head and tail). */
export const FAILURE_EXCERPT_CHARS = 10_000;
/** A successful command's oversized output is replaced by the file path and a preview of this many characters. */
export const SUCCESS_PREVIEW_CHARS = 2_000;

export const DEFAULT_MAX_OUTPUT_FILE_BYTES = 5 * 1024 ** 3;
export const DEFAULT_PROGRESS_INTERVAL_MS = 500;
export const DEFAULT_KILL_GRACE_MS = 300;

/** Credential-looking variable names (the list lives with result redaction, which hides the same values). */
export { DEFAULT_SECRET_ENV_PATTERNS } from '../../execution/redaction.js';

export function clampOutputChars(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_OUTPUT_CHARS;
  return Math.min(MAX_OUTPUT_CHARS, Math.max(MIN_OUTPUT_CHARS, Math.floor(value)));
}

/** `TOOLGATE_BASH_MAX_OUTPUT_LENGTH`, else Claude Code's `BASH_MAX_OUTPUT_LENGTH`, else 30,000; clamped. */
export function outputCharsFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.TOOLGATE_BASH_MAX_OUTPUT_LENGTH ?? env.BASH_MAX_OUTPUT_LENGTH;
  if (raw === undefined || raw.trim() === '') return DEFAULT_OUTPUT_CHARS;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? clampOutputChars(n) : DEFAULT_OUTPUT_CHARS;
}

/** Read once: the static `maxResultSizeChars` of the tool. */
export const ENV_OUTPUT_CHARS = outputCharsFromEnv(process.env);

/** The inline limit of one call: the setting when given, else the environment's. */
export function inlineOutputChars(settings: ToolSettings): number {
  return settings.bashOutputMaxChars !== undefined ? clampOutputChars(settings.bashOutputMaxChars) : ENV_OUTPUT_CHARS;
}

export function backgroundTasksEnabled(settings: ToolSettings, env: NodeJS.ProcessEnv = process.env): boolean {
  if (settings.bash?.disableBackgroundTasks === true) return false;
  const flag = env.TOOLGATE_DISABLE_BACKGROUND_TASKS ?? env.CLAUDE_CODE_DISABLE_BACKGROUND_TASKS;
  return !(flag !== undefined && /^(1|true|yes)$/i.test(flag.trim()));
}

export function timeoutLimits(settings: ToolSettings, env: NodeJS.ProcessEnv = process.env): { defaultMs: number; maxMs: number } {
  // The settings first, then Claude Code's variables (BASH_MAX_TIMEOUT_MS, BASH_DEFAULT_TIMEOUT_MS), then the defaults.
  const fromEnv = (name: string) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : positive(Number(raw));
  };
  const maxMs = positive(settings.bash?.maxTimeoutMs) ?? fromEnv('BASH_MAX_TIMEOUT_MS') ?? MAX_TIMEOUT_MS;
  const defaultMs = Math.min(positive(settings.bash?.defaultTimeoutMs) ?? fromEnv('BASH_DEFAULT_TIMEOUT_MS') ?? DEFAULT_TIMEOUT_MS, maxMs);
  return { defaultMs, maxMs };
}

/** `TOOLGATE_ENV_FILE`, else Claude Code's `CLAUDE_ENV_FILE`: sourced before every command. */
export function envFileFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.TOOLGATE_ENV_FILE ?? env.CLAUDE_ENV_FILE;
  return file !== undefined && file.trim() !== '' ? file : undefined;
}

/** `CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR=1` (or toolgate's name): every call starts in the project directory. */
export function keepProjectDir(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.TOOLGATE_BASH_MAINTAIN_PROJECT_WORKING_DIR ?? env.CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR;
  return flag !== undefined && /^(1|true|yes)$/i.test(flag.trim());
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}
