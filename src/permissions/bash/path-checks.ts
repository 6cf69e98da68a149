/**
 * Filesystem facts of a command, in execution order with `cd` followed: writes by redirection (each needs write
 * permission for its path), paths read by read-only commands and `<` redirects (inside the working directories,
 * or approved by the engine's read check), and `rm -r` of critical paths.
 */
import { homedir } from 'node:os';
import { resolve, sep } from 'node:path';
import type { PermissionResult, ToolPermissionContext } from '../../tool/permission-types.js';
import type { BashPermissionDeps, SimpleCommand } from './types.js';
import { acceptEditsCommand } from './accept-edits.js';
import { classifySubcommand, type CommandVerdict } from './classify.js';
import { nextCwdState, resolveArgPath, WorkingDirs, type CwdState } from './paths.js';
import { HARMLESS_WRITE_TARGETS } from './read-only.js';
import { subcommandStarts } from './program-options.js';
import { gitRepositoryCheck, ownRepositories, type GitRepo } from './git-repo.js';

export interface SubcommandFacts {
  readonly verdict: CommandVerdict;
  /** Read-only and every path it reads is fine, or a filesystem command acceptEdits mode accepts. */
  readonly autoAllowed: boolean;
  readonly reason?: string;
}

export interface PathFacts {
  readonly deny?: { readonly result: PermissionResult; readonly subcommand: string };
  readonly writeAsk?: { readonly result: PermissionResult; readonly path: string; readonly subcommand: string };
  /** The first write redirect the path check allowed (by mode or rule): it names what decided an allow. */
  readonly writeAllowed?: { readonly result: PermissionResult; readonly path: string; readonly subcommand: string };
  readonly unknownTarget?: { readonly reason: string; readonly subcommand: string };
  readonly critical?: { readonly reason: string; readonly subcommand: string };
  /** A program that reads configuration or hooks from where it runs, run after a `cd` away from the project root. */
  readonly foreignConfig?: { readonly reason: string; readonly subcommand: string };
  /** The first subcommand acceptEdits mode accepted (`mkdir`, `touch`, `mv`, `cp` inside the working directories). */
  readonly acceptedEdit?: { readonly reason: string; readonly subcommand: string };
  readonly facts: Map<SimpleCommand, SubcommandFacts>;
}

/**
 * Programs that read configuration, hooks or code from the directory they run in (`.git/config` with its
 * `core.fsmonitor`/pager/hooks, Makefiles, `.npmrc` and package scripts, `conftest.py`, `.cargo/config.toml`, …).
 */
export const CONFIG_READERS: ReadonlySet<string> = new Set([
  'git', 'make', 'gmake', 'just', 'npm', 'pnpm', 'yarn', 'npx', 'bun', 'bunx', 'deno', 'node', 'cargo', 'go', 'mvn', 'gradle',
  'gradlew', './gradlew', 'mvnw', './mvnw', 'bundle', 'rake', 'poetry', 'uv', 'pip', 'pip3', 'python', 'python3', 'pytest', 'tox', 'nox',
  'direnv', 'docker', 'docker-compose', 'podman', 'terraform', 'tofu', 'helm', 'composer', 'mix', 'dotnet', 'swift', 'jest', 'vitest',
  'eslint', 'prettier', 'tsc', 'turbo', 'nx', 'lerna', 'pre-commit', 'cmake', 'meson', 'ninja', 'bazel', 'sbt', 'lein', 'stack', 'cabal',
]);

/**
 * Why running `name` in one of `dirs` may load another directory's configuration, if it may: every config reader
 * outside the project (git inside it is told apart by the repository it finds: gitRepositoryCheck).
 */
function foreignConfigReason(name: string, state: CwdState, ctx: ToolPermissionContext): string | undefined {
  if (!CONFIG_READERS.has(name)) return undefined;
  if (state.unknown) return `${name} reads configuration from the directory it runs in, which cannot be known here`;
  const root = ctx.projectDir;
  for (const dir of state.dirs) {
    if (dir === root || dir === ctx.cwd) continue;
    if (!(dir.startsWith(root + sep) || dir.startsWith(ctx.cwd + sep))) return `${name} would read configuration (and hooks) from ${dir}, outside the project`;
  }
  return undefined;
}

function isCriticalPath(abs: string, ctx: ToolPermissionContext, home: string): boolean {
  if (abs === sep) return true;
  if (abs.split(sep).filter(Boolean).length === 1) return true;
  const protectedDirs = [home, ctx.cwd, ...[...ctx.additionalWorkingDirectories.keys()]];
  return protectedDirs.some((d) => d === abs || d.startsWith(abs.endsWith(sep) ? abs : abs + sep));
}

function criticalRemoval(sub: SimpleCommand, state: CwdState, ctx: ToolPermissionContext, home: string): string | undefined {
  for (const view of sub.denyWords) {
    const name = view[0];
    if (!name?.literal || (name.value !== 'rm' && name.value !== 'rmdir')) continue;
    let options = true;
    const recursive = view.some((w) => w.literal && (/^-[a-zA-Z]*[rR]/.test(w.value) || w.value === '--recursive'));
    for (const w of view.slice(1)) {
      if (options && w.literal && w.value === '--') {
        options = false;
        continue;
      }
      if (options && w.literal && w.value.startsWith('-') && w.value !== '-') continue;
      if (!w.literal) {
        if (recursive) return `${name.value} -r on a non-literal path (${w.value}) could remove anything`;
        continue;
      }
      const globAt = w.value.search(/[*?[]/);
      if (globAt !== -1) {
        // A glob removes entries of the directory it is in: critical when that is everything in a critical
        // directory (`rm -rf ~/*`), or when the entries could be top-level or protected directories (`/u*`).
        const dirPart = w.value.slice(0, w.value.lastIndexOf('/', globAt) + 1) || '.';
        const dirs = resolveArgPath(dirPart, state, home);
        if (!dirs) return `${name.value} on a glob whose directory cannot be resolved (${w.value})`;
        const everything = /^\.?\*$/.test(w.value.slice(dirPart === '.' ? 0 : dirPart.length));
        const protectedDirs = [home, ctx.cwd, ...ctx.additionalWorkingDirectories.keys()];
        const hit = dirs.find((d) => (everything && isCriticalPath(d, ctx, home)) || d === sep || protectedDirs.some((p) => p.startsWith(d.endsWith(sep) ? d : d + sep)));
        if (hit !== undefined) return `${name.value} ${w.value} removes entries of a critical directory (${hit})`;
        continue;
      }
      const resolved = resolveArgPath(w.value, state, home);
      if (!resolved) return `${name.value} on a path that cannot be resolved (${w.value})`;
      const hit = resolved.find((abs) => isCriticalPath(abs, ctx, home));
      if (hit !== undefined) return `${name.value} ${w.value} removes a critical path (${hit})`;
    }
  }
  return undefined;
}

const isAllow = (r: PermissionResult): boolean => r.behavior === 'allow';

/** git subcommands that make a repository (or a work tree of one) where there was none. */
const GIT_PLANTERS = new Set(['init', 'clone', 'worktree', 'submodule']);

/**
 * The subcommands that may create files before (or while) another runs: those that are not read-only, or that
 * redirect into a file. With `repositories`, those that may make a repository: then a git command counts only when
 * it makes one (the others cannot plant one for a later git to use: git never checks out a `.git`, and the Bash tool
 * refuses implicit bare repositories).
 */
export function writers(subs: readonly SimpleCommand[], repositories = false): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const sub of subs) {
    if (sub.redirects.some((r) => r.isWrite && (r.target === null || !HARMLESS_WRITE_TARGETS.has(r.target)))) out.push(sub);
    else if (!sub.inner && !classifySubcommand(sub).readOnly && !(repositories && isPlainGit(sub))) out.push(sub);
  }
  return out;
}

/** Every view of the subcommand runs git, with a subcommand that makes no repository. */
function isPlainGit(sub: SimpleCommand): boolean {
  return sub.denyWords.every((view) => {
    const program = view[0]?.literal ? view[0].value.slice(view[0].value.lastIndexOf('/') + 1) : undefined;
    if (program !== 'git') return false;
    const at = subcommandStarts('git', view);
    const name = at?.length === 1 ? view[at[0]!] : undefined;
    return name?.literal === true && !GIT_PLANTERS.has(name.value);
  });
}

export function collectPathFacts(subs: readonly SimpleCommand[], ctx: ToolPermissionContext, deps: BashPermissionDeps): PathFacts {
  const home = ctx.homeDir ?? homedir();
  const workingDirs = new WorkingDirs([ctx.cwd, ...[...ctx.additionalWorkingDirectories.keys()].map((d) => resolve(ctx.cwd, d))]);
  let state: CwdState = { dirs: [ctx.shellCwd ?? ctx.cwd], unknown: false };
  const facts = new Map<SimpleCommand, SubcommandFacts>();
  let writeAsk: PathFacts['writeAsk'];
  let writeAllowed: PathFacts['writeAllowed'];
  let unknownTarget: PathFacts['unknownTarget'];
  let critical: PathFacts['critical'];
  let foreignConfig: PathFacts['foreignConfig'];
  let ownRepos: readonly GitRepo[] | undefined;
  let acceptedEdit: PathFacts['acceptedEdit'];
  let writing: SimpleCommand[] | undefined;

  for (const sub of subs) {
    for (const r of sub.redirects) {
      if (!r.isWrite) continue;
      if (r.target === null) {
        unknownTarget ??= { reason: `redirect to a non-literal target (${r.op})`, subcommand: sub.text };
        continue;
      }
      if (HARMLESS_WRITE_TARGETS.has(r.target)) continue;
      const resolved = resolveArgPath(r.target, state, home);
      if (!resolved) {
        unknownTarget ??= { reason: `redirect to ${r.target}, whose location cannot be known`, subcommand: sub.text };
        continue;
      }
      for (const abs of resolved) {
        const result = deps.checkWritePath(abs);
        if (result.behavior === 'deny') return { deny: { result, subcommand: sub.text }, facts };
        if (!isAllow(result)) writeAsk ??= { result, path: abs, subcommand: sub.text };
        else writeAllowed ??= { result, path: abs, subcommand: sub.text };
      }
    }

    const verdict = classifySubcommand(sub);
    let reason = verdict.readOnly ? undefined : verdict.reason;
    const readTargets = sub.redirects.filter((r) => r.op === '<').map((r) => r.target);
    const reads = [...(verdict.readOnly ? verdict.paths : []), ...readTargets];
    if (verdict.readOnly && verdict.unknownPaths) reason = 'reads paths that are not named in the command';
    for (const raw of reads) {
      const resolved = raw === null ? undefined : resolveArgPath(raw, state, home);
      if (!resolved) {
        reason ??= `reads ${raw ?? 'a non-literal path'}, whose location cannot be known`;
        continue;
      }
      for (const abs of resolved) {
        if (deps.checkReadPath) {
          const result = deps.checkReadPath(abs);
          if (result.behavior === 'deny') return { deny: { result, subcommand: sub.text }, facts };
          if (!isAllow(result)) reason ??= `reads ${abs}, which needs permission`;
        } else if (!workingDirs.contains(abs)) {
          reason ??= `reads ${abs}, outside the working directories`;
        }
      }
    }
    critical ??= ((r) => (r ? { reason: r, subcommand: sub.text } : undefined))(criticalRemoval(sub, state, ctx, home));
    // git: the repository it will use, wherever it runs (`-C`, `cd`, a bare or pointed-to repository inside the project).
    for (const view of sub.denyWords) {
      const name = view[0]?.literal ? view[0].value : undefined;
      if (name === undefined || name.slice(name.lastIndexOf('/') + 1) !== 'git') continue;
      const mayCreate = (): string | undefined => (writing ??= writers(subs, true)).find((w) => w !== sub)?.text;
      const git = gitRepositoryCheck(view, sub, state, ctx, () => (ownRepos ??= ownRepositories(ctx)), mayCreate);
      if (git.foreign !== undefined) foreignConfig ??= { reason: git.foreign, subcommand: sub.text };
      if (git.config !== undefined) reason ??= git.config;
    }
    if (foreignConfig === undefined && (state.unknown || state.dirs.some((d) => d !== ctx.cwd))) {
      for (const view of sub.denyWords) {
        const name = view[0]?.literal ? view[0].value : undefined;
        const why = name === undefined ? undefined : foreignConfigReason(name.slice(name.lastIndexOf('/') + 1), state, ctx) ?? foreignConfigReason(name, state, ctx);
        if (why !== undefined) {
          foreignConfig = { reason: why, subcommand: sub.text };
          break;
        }
      }
    }
    let accepted = false;
    if (!verdict.readOnly && ctx.mode === 'acceptEdits') {
      const edit = acceptEditsCommand(sub, { state, home, workingDirs, checkWritePath: deps.checkWritePath, checkReadPath: deps.checkReadPath });
      if (edit?.accepted) {
        accepted = true;
        acceptedEdit ??= { reason: edit.reason, subcommand: sub.text };
      } else if (edit !== undefined) reason = edit.reason;
    }
    facts.set(sub, { verdict, autoAllowed: accepted || (verdict.readOnly && reason === undefined), reason });
    if (verdict.cd) state = nextCwdState(state, verdict.cd.target, home, sub.cdCertain);
  }
  return { writeAsk, writeAllowed, unknownTarget, critical, foreignConfig, acceptedEdit, facts };
}
