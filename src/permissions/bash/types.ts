/**
 * The shapes the Bash analyser hands to the permission engine and the Bash tool. Everything here is literal: a
 * word the analyser cannot reduce to a fixed string makes `argv` null, and the checks fail closed on null.
 */
import type { PermissionResult } from '../../tool/permission-types.js';

export interface Redirect {
  /** The operator as written: `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<<`, `<<<`, `<&`, `<>`. */
  readonly op: string;
  /** The explicit descriptor (`2>file` → 2), when given. */
  readonly fd?: number;
  /** The literal target after quote removal; null when it is not a fixed string (`> "$f"`). */
  readonly target: string | null;
  /** True when the redirect writes a file (not `/dev/null`-agnostic: the caller decides about `/dev/null`). */
  readonly isWrite: boolean;
}

export interface SimpleCommand {
  /** The subcommand's source text. */
  readonly text: string;
  /** Literal words after quote removal; null when a word that matters is not literal. */
  readonly argv: readonly string[] | null;
  /** Leading `VAR=value` assignments, as written. */
  readonly assignments: readonly string[];
  readonly redirects: readonly Redirect[];
  /** argv with wrappers (`timeout`, `nice`, `command`, bare `xargs`, …) and safe assignments stripped: for allow rules. */
  readonly strippedArgv: readonly string[] | null;
  /** Every argv view deny rules are matched against (also through `env`, `sudo`, `bash -c '…'`, …). */
  readonly denyCandidates: readonly (readonly string[])[];
  /** Why this subcommand cannot be reasoned about, when it cannot (expansion in command position, `eval`, …). */
  readonly unsafeReason?: string;
}

export type BashAnalysis =
  | { readonly ok: true; readonly subcommands: readonly SimpleCommand[] }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Best-effort raw pieces (split on separators) so deny rules still apply to what could not be parsed. */
      readonly rawSegments: readonly string[];
      /** Whatever subcommands could still be extracted, for deny matching only. */
      readonly subcommands?: readonly SimpleCommand[];
    };

export interface BashPermissionDeps {
  /** Decide a write to an absolute path (a redirect target). */
  checkWritePath(absPath: string): PermissionResult;
  /** Decide a read of an absolute path (optional: without it, paths outside the working directories ask). */
  checkReadPath?(absPath: string): PermissionResult;
}

export interface ReadOnlyOptions {
  readonly cwd?: string;
  readonly workingDirectories?: readonly string[];
}
