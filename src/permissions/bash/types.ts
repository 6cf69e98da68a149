/**
 * The shapes the Bash analyser hands to the permission engine and the Bash tool. Everything here is literal: a
 * word the analyser cannot reduce to a fixed string is marked non-literal, and the checks fail closed on it.
 */
import type { PermissionResult } from '../../tool/permission-types.js';
import type { MatchWord } from './rule-match.js';
import type { WordValue } from './words.js';

export type { MatchWord } from './rule-match.js';
export type { WordValue } from './words.js';

export interface Redirect {
  /** The operator as written: `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<&`, `<>`, `<<`, `<<-`, `<<<`, `>&-`. */
  readonly op: string;
  /** The explicit descriptor (`2>file` → 2), when given. */
  readonly fd?: number;
  /** The literal target after quote removal; null when it is not a fixed string (`> "$f"`). */
  readonly target: string | null;
  /** True when the redirect opens a file for writing (fd duplications like `2>&1` are not writes). */
  readonly isWrite: boolean;
}

/** What kind of statement a subcommand is (plain commands, and the shell syntax that acts like one). */
export type SubcommandKind = 'command' | 'assignment' | 'declaration' | 'test' | 'arithmetic' | 'redirect';

export interface SimpleCommand {
  readonly kind: SubcommandKind;
  /** The subcommand's source text. */
  readonly text: string;
  /**
   * Words after quote removal (command name first). Null when the command name is not literal. A non-literal
   * argument appears as its source text and is marked in `words`.
   */
  readonly argv: readonly string[] | null;
  /** The same words with whether each is literal, glob-expandable, … */
  readonly words: readonly WordValue[];
  /** Leading `VAR=value` assignments, as written. */
  readonly assignments: readonly string[];
  readonly redirects: readonly Redirect[];
  /** argv with wrappers (`timeout`, `nice`, `command`, bare `xargs`, …) and safe assignments stripped: for allow rules. */
  readonly strippedArgv: readonly string[] | null;
  readonly strippedWords: readonly MatchWord[];
  /** Every argv view deny rules are matched against (also through `env`, `sudo`, `bash -c '…'`, …). */
  readonly denyCandidates: readonly (readonly string[])[];
  readonly denyWords: readonly (readonly MatchWord[])[];
  /** The commands a literal `bash -c '…'` (or a heredoc/here-string fed to a shell) runs. */
  readonly inner?: readonly SimpleCommand[];
  /** Why this subcommand cannot be reasoned about, when it cannot (expansion in command position, `eval`, …). */
  readonly unsafeReason?: string;
  /** The first `${…}` parameter expansion in it: never read-only by classification (bare `$VAR` may be). */
  readonly paramExpansion?: string;
  /**
   * A `cd` in a top-level chain of `&&` only: every later command runs in its directory (or not at all). Other
   * `cd`s may fail or be scoped to a subshell, so later paths must be fine from before and after them.
   */
  readonly cdCertain?: boolean;
}

/**
 * Names the command's own shell may set outside any simple command, as the tree has them (never from quoted text or
 * comments): `for`/`select` variables, `${name:=…}` / `${name=…}` defaults, function definitions.
 */
export interface ShellNames {
  readonly loops: readonly string[];
  readonly defaults: readonly string[];
  readonly functions: readonly string[];
}

export type BashAnalysis =
  | { readonly ok: true; readonly subcommands: readonly SimpleCommand[]; readonly names?: ShellNames }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Best-effort raw pieces (split on separators) so deny rules still apply to what could not be parsed. */
      readonly rawSegments: readonly string[];
      /** Whatever subcommands could still be extracted, for deny matching only. */
      readonly subcommands: readonly SimpleCommand[];
    };

export interface BashPermissionDeps {
  /** Decide a write to an absolute path (a redirect target). */
  checkWritePath(absPath: string): PermissionResult;
  /** Decide a read of an absolute path (optional: without it, paths outside the working directories ask). */
  checkReadPath?(absPath: string): PermissionResult;
  /**
   * The tool name whose rules apply (default `Bash`): a custom shell tool's allow rules are its own; deny and ask
   * rules of `Bash` apply to it as well (fail closed).
   */
  readonly ruleToolName?: string;
}

export interface ReadOnlyOptions {
  readonly cwd?: string;
  readonly workingDirectories?: readonly string[];
  readonly homeDir?: string;
}
