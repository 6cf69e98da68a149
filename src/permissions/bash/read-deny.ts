/**
 * Read deny rules against everything a command could open, not only the paths of known read-only commands. Only
 * when the context has a Read deny rule (otherwise nothing here runs):
 *  1. every literal argument of every subcommand (and `--opt=PATH`, `if=PATH`, `@PATH`, `REV:PATH` forms, `<`
 *     redirects, assignment values) that names a denied path → deny;
 *  2. globs and brace expansions are expanded against the real filesystem as bash would, each match checked;
 *     an expansion that cannot be done → ask;
 *  3. commands that read whole directories or paths from input (recursive greps, archivers, `find -exec`,
 *     `xargs cat`) → ask when the directory could hold a denied path;
 *  4. a non-literal argument where it could name a file (not `echo "$x"`) → ask;
 *  5. inline interpreter code (`python -c`, `awk`, `sed`) naming a denied path → ask.
 * The asks carry the askRule layer: "a deny rule cannot be ruled out" must hold in bypassPermissions too.
 */
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { DecisionTrace, PermissionResult, ToolPermissionContext } from '../../tool/permission-types.js';
import { existsSync, lstatIfExists, realpathNative, statIfExists } from '../observed-fs.js';
import type { CompiledPathPattern } from '../path-pattern.js';
import { checkPathPermission } from '../paths.js';
import type { BashAnalysis, BashPermissionDeps, SimpleCommand } from './types.js';
import type { MatchWord } from './rule-match.js';
import type { WordValue } from './words.js';
import { classifySubcommand } from './classify.js';
import { nextCwdState, type CwdState } from './paths.js';
import { matchSpelling, pathCandidates, resolveExact } from './read-deny-words.js';
import { NEUTRAL_COMMANDS } from './read-only-specs.js';
import { stripAllowWrappers } from './wrappers.js';
import { naiveWords } from './raw-split.js';
import { expandBraces, expandGlob, hasGlobChars, isPlainBraceWord } from './glob-expand.js';
import { patternGlobMayMeet } from './glob-overlap.js';
import { writers } from './path-checks.js';
import { contentReader, toWords, type DirReader } from './recursive-readers.js';
import { gitViews, historyRead, revisionPaths } from './read-deny-git.js';
import type { GitReadJudge } from './read-deny-git.js';
import { askRuleTrace, denyPatternsInside, excludedName, hardLinkedDenied, readDenyScope, ruleText, type ReadDenyScope } from './read-deny-scope.js';

export type ReadDenyFinding =
  | { readonly kind: 'deny'; readonly result: PermissionResult; readonly subcommand: string }
  | { readonly kind: 'ask'; readonly message: string; readonly trace: DecisionTrace };

const short = (text: string): string => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** Interpreters and script languages whose inline code may open files by name. */
const INLINE_CODE = /^(python[\d.]*|pypy[\d.]*|node|nodejs|bun|deno|perl|ruby|php|lua|luajit|Rscript|osascript|pwsh|powershell|tclsh|awk|gawk|mawk|nawk|sed|gsed)$/;
const HARMLESS_KINDS = new Set(['assignment', 'declaration', 'test', 'arithmetic']);
/** Pure string commands: their arguments are never opened. */
const STRING_ONLY = new Set(['basename', 'dirname']);

/**
 * Options whose value only leaves paths out (`--exclude=.env`): naming a denied file there is how a search is made
 * safe, not a read. (`--exclude-from` / `--ignore-file` read their file, so they are not here.)
 */
const EXCLUDING_OPTIONS = new Set(['--exclude', '--exclude-dir', '--ignore', '--ignore-dir']);

/** What the pre-filter answers for a path no deny can match (only a deny is ever acted on). */
const NOT_DENIED: PermissionResult = { behavior: 'passthrough' };

const isGlobWord = (w: MatchWord): boolean => hasGlobChars(w.value) && (w as Partial<WordValue>).glob !== false;

class Judge implements GitReadJudge {
  denied: ReadDenyFinding | undefined;
  asked: ReadDenyFinding | undefined;
  state: CwdState;
  private globOptionsChanged = false;
  readonly home: string;
  private readonly results = new Map<string, PermissionResult>();
  readonly realCache = new Map<string, string>();
  private readonly realDirs = new Map<string, string | null>();
  private readonly first: CompiledPathPattern;
  /** `hardLinkedDenied`, asked once per decision (undefined: not asked yet; null: none). */
  private linked: ReturnType<typeof hardLinkedDenied> | null | undefined;

  private current: SimpleCommand | undefined;
  private writing: SimpleCommand[] | undefined;

  constructor(
    readonly scope: ReadDenyScope,
    private readonly ctx: ToolPermissionContext,
    private readonly deps: BashPermissionDeps,
    private readonly subs: readonly SimpleCommand[],
  ) {
    this.home = ctx.homeDir ?? homedir();
    this.state = { dirs: [ctx.shellCwd ?? ctx.cwd], unknown: false };
    this.first = scope.patterns[0]!;
  }

  private hardLinked(): ReturnType<typeof hardLinkedDenied> {
    if (this.linked === undefined) this.linked = hardLinkedDenied(this.scope) ?? null;
    return this.linked ?? undefined;
  }

  /**
   * False only when no Read deny can match `abs`: the path as written and its real location (its parent's real path
   * plus its name, when it is not itself a link) match no deny pattern, and it is no hard link of a denied file.
   * Cheaper than the engine's full check, which throws on every name that does not exist.
   */
  private mayBeDenied(abs: string): boolean {
    // eslint-disable-next-line no-control-regex
    if (!/^[\x00-\x7f]*$/.test(abs)) return true;
    let st;
    try {
      st = lstatIfExists(abs);
    } catch {
      return true;
    }
    if (st?.isSymbolicLink() || (st?.isFile() && st.nlink > 1 && this.hardLinked() !== undefined)) return true;
    const parent = dirname(abs);
    let realParent = this.realDirs.get(parent);
    if (realParent === undefined) {
      try {
        realParent = realpathNative(parent);
      } catch {
        realParent = null;
      }
      this.realDirs.set(parent, realParent);
    }
    if (realParent === null) return true;
    const real = abs === parent ? realParent : join(realParent, basename(abs));
    return this.scope.patterns.some((p) => p.matches(abs) || p.matches(real));
  }

  private read(abs: string): PermissionResult {
    let r = this.results.get(abs);
    if (!r && !this.mayBeDenied(abs)) {
      r = NOT_DENIED;
      this.results.set(abs, r);
    }
    if (!r) {
      r = this.deps.checkReadPath ? this.deps.checkReadPath(abs) : checkPathPermission(abs, 'read', this.ctx);
      this.results.set(abs, r);
    }
    return r;
  }

  ask(pattern: CompiledPathPattern, reason: string, subcommand: string): void {
    this.asked ??= { kind: 'ask', message: `"${short(subcommand)}" needs approval: ${reason}.`, trace: askRuleTrace(pattern, reason, subcommand) };
  }

  cannotRuleOut(what: string, subcommand: string): void {
    this.ask(this.first, `${what}, so Read deny ${ruleText(this.first)} cannot be ruled out`, subcommand);
  }

  /** Records a deny (the first one wins) and says whether this path was denied. */
  checkAbs(abs: string, subcommand: string): boolean {
    const r = this.read(abs);
    if (r.behavior === 'deny' && !this.denied) this.denied = { kind: 'deny', result: r, subcommand };
    return r.behavior === 'deny';
  }

  /** Rule 1 and 2 for one word (already quote-removed), in every spelling it may carry a path in. */
  private checkWord(value: string, glob: boolean, subcommand: string, candidates = pathCandidates(value)): void {
    for (const c of candidates) {
      if (glob && hasGlobChars(c)) {
        const expanded = this.expand(c, subcommand);
        let denied = false;
        for (const abs of expanded ?? []) {
          denied = this.checkAbs(abs, subcommand) || denied;
          // A match bash passes as `--from-file=.env` or `-T.env`: the name a repository brings is an option.
          const word = c === value ? matchSpelling(c, abs, this.state.dirs) : abs;
          if (word.startsWith('-')) this.cannotRuleOut(`${short(c)} matches ${short(word)}, which the program may read as an option`, subcommand);
          else if (pathCandidates(word).some((w) => w !== word)) this.checkWord(word, false, subcommand);
        }
        if (expanded !== undefined && !denied) this.globAfterWriter(c, subcommand);
      }
      const resolved = resolveExact(c, this.state, this.home);
      if (!resolved) {
        this.cannotRuleOut(`where ${short(c)} points cannot be known`, subcommand);
        continue;
      }
      // Pattern text as an argument (`find -name '*.key'`, `rg -g '!*.key'`) is not a file unless one has that name.
      const patternText = hasGlobChars(c);
      for (const abs of resolved) if (!patternText || existsSync(abs)) this.checkAbs(abs, subcommand);
    }
  }

  private expand(pattern: string, subcommand: string): readonly string[] | undefined {
    if (this.globOptionsChanged) {
      this.cannotRuleOut(`shell options changed how ${short(pattern)} expands`, subcommand);
      return undefined;
    }
    if (this.state.unknown && !isAbsolute(pattern) && !pattern.startsWith('~')) {
      this.cannotRuleOut(`the directory ${short(pattern)} expands in cannot be known`, subcommand);
      return undefined;
    }
    const e = expandGlob(pattern, this.state.dirs, this.home);
    if (!e.ok) {
      this.cannotRuleOut(e.reason, subcommand);
      return undefined;
    }
    return e.paths;
  }

  /**
   * What a glob meets is what exists when it expands. When another part of the command may create files first
   * (`git stash pop; cat .e*`), a glob that could match a name a deny rule covers asks, whether or not one exists now.
   */
  private globAfterWriter(pattern: string, subcommand: string): void {
    const writer = this.writer();
    if (writer === undefined) return;
    const segments = pattern.split('/');
    const first = segments.findIndex((seg) => hasGlobChars(seg));
    const prefix = segments.slice(0, first).join('/');
    const dirs = resolveExact(first === 0 ? '.' : prefix === '' ? '/' : prefix, this.state, this.home);
    if (!dirs) return this.cannotRuleOut(`where ${short(pattern)} expands cannot be known`, subcommand);
    const rest = segments.slice(first).filter((seg) => seg !== '');
    const hit = patternGlobMayMeet(this.scope, dirs, rest, this.realCache, (dir) => (this.read(dir).behavior === 'deny' ? this.patternFor(dir) : undefined));
    if (hit) this.ask(hit, `${short(pattern)} could match files ${ruleText(hit)} denies, and "${short(writer)}" in the same command may create them before it expands`, subcommand);
  }

  /** The first other subcommand that may create files (path-checks.ts `writers`), asked once per decision. */
  private writer(): string | undefined {
    this.writing ??= writers(this.subs);
    return this.writing.find((w) => w !== this.current)?.text;
  }

  /** Brace words (`.{env,x}`) become their expansions; anything else non-literal cannot be checked. */
  private braceWords(w: MatchWord, subcommand: string): string[] | undefined {
    if (!isPlainBraceWord(w.value)) return undefined;
    const words = expandBraces(w.value);
    if (!words) this.cannotRuleOut(`${short(w.value)} expands to too many words`, subcommand);
    return words;
  }

  subcommand(sub: SimpleCommand): void {
    this.current = sub;
    const text = sub.text;
    const core = stripAllowWrappers(sub.words);
    const name = core[0]?.literal ? core[0].value.slice(core[0].value.lastIndexOf('/') + 1) : undefined;
    const neutral = sub.kind === 'command' && name !== undefined && (NEUTRAL_COMMANDS.has(name) || STRING_ONLY.has(name));
    const tolerant = neutral || HARMLESS_KINDS.has(sub.kind) || (sub.kind === 'command' && (name === 'test' || name === '['));
    if (name === 'shopt' || [...sub.assignments, ...sub.words.map((w) => w.value)].some((a) => /^GLOBIGNORE=/.test(a))) this.globOptionsChanged = true;

    // Assignments arrive as written: `X=.env`, `X='.env'`, `X=".env"` name the file; `X=$y` opens nothing itself.
    for (const a of sub.assignments) {
      const eq = a.indexOf('=');
      if (eq <= 0 || /[$`\\]/.test(a)) continue;
      const raw = a.slice(eq + 1);
      const value = /^'[^']*'$|^"[^"]*"$/.test(raw) ? raw.slice(1, -1) : raw;
      this.checkWord(value, false, text, pathCandidates(value));
    }
    // Every word of every argv view (wrappers seen through, `bash -c` strings parsed), the command name aside.
    const seen = new Set<MatchWord>();
    for (const list of [sub.words, ...sub.denyWords]) {
      for (let i = 1; i < list.length; i++) {
        const w = list[i]!;
        if (seen.has(w)) continue;
        seen.add(w);
        if (w.literal) {
          const option = w.value.startsWith('--') ? w.value.split('=')[0]! : undefined;
          if (option !== undefined && EXCLUDING_OPTIONS.has(option)) {
            // `--exclude .env`: the next word is the excluded name, not a path to open.
            if (!w.value.includes('=') && list[i + 1]?.literal) seen.add(list[i + 1]!);
            continue;
          }
          if (!neutral) this.checkWord(w.value, isGlobWord(w), text);
          continue;
        }
        if (tolerant) continue;
        const words = this.braceWords(w, text);
        if (words) for (const x of words) this.checkWord(x, true, text);
        else this.cannotRuleOut(`${short(w.value)} is not a literal path`, text);
      }
    }
    for (const r of sub.redirects) {
      const reads = r.op === '<' || r.op === '<>';
      if (!reads && !r.isWrite) continue;
      if (r.target === null) this.cannotRuleOut(`the ${r.op} redirect target is not literal`, text);
      else if (!(r.isWrite && r.target.startsWith('/dev/'))) this.checkWord(r.target, true, text, [r.target]);
    }
    if (name !== undefined && INLINE_CODE.test(name)) this.inlineCode(core.slice(1), name, text);
    // Every view that runs git (`sudo git show`, `env git log -p`, `bash -c 'git show'`), not only the allow-stripped one.
    for (const view of gitViews(name === 'git' ? [core, ...sub.denyWords] : sub.denyWords)) {
      revisionPaths(this, view.slice(1), text);
      historyRead(this, view, text);
    }
    for (const view of sub.denyWords) this.contentReader(view, text);
    const verdict = classifySubcommand(sub);
    if (verdict.cd) this.state = nextCwdState(this.state, verdict.cd.target, this.home, sub.cdCertain);
  }

  /** Words of a piece the parser could not handle: denies still apply to what it names. */
  rawSegment(segment: string): void {
    for (const w of naiveWords(segment).slice(1)) this.checkWord(w, true, segment);
  }

  private inlineCode(words: readonly MatchWord[], name: string, subcommand: string): void {
    for (const w of words) {
      if (!w.literal) continue;
      // A glob's matches are the code bash passes (`sed -n *` with a file named `1e cat .env` runs `cat .env`).
      const texts = isGlobWord(w) ? (this.expand(w.value, subcommand) ?? []).map((abs) => matchSpelling(w.value, abs, this.state.dirs)) : [w.value];
      for (const text of texts) this.inlineText(text, name, subcommand);
    }
  }

  private inlineText(text: string, name: string, subcommand: string): void {
    if (!/[^\w./~@+%:=,-]/.test(text)) return;
    for (const token of text.split(/[^\w./~@+%:=,-]+/)) {
      for (const c of pathCandidates(token)) {
        for (const abs of resolveExact(c, this.state, this.home) ?? []) {
          const r = this.read(abs);
          if (r.behavior !== 'deny') continue;
          const pattern = this.patternFor(abs);
          this.ask(pattern, `the ${name} code names ${abs}, which ${ruleText(pattern)} denies`, subcommand);
        }
      }
    }
  }

  private patternFor(abs: string): CompiledPathPattern {
    return this.scope.patterns.find((p) => p.matches(abs)) ?? this.first;
  }

  private contentReader(view: readonly MatchWord[], subcommand: string): void {
    if (!view[0]?.literal) return;
    // Cheap first look: most commands are not content readers, and expanding globs costs syscalls.
    if (!contentReader(toWords(view.map((w) => w.value)))) return;
    const expanded: string[] = [];
    for (const w of view) {
      if (w.literal && isGlobWord(w) && !this.globOptionsChanged && !this.state.unknown) {
        const e = expandGlob(w.value, this.state.dirs, this.home);
        if (e.ok && e.paths.length > 0) {
          expanded.push(...e.paths);
          continue;
        }
      } else if (!w.literal && isPlainBraceWord(w.value)) {
        const words = expandBraces(w.value);
        if (words) {
          expanded.push(...words);
          continue;
        }
      }
      expanded.push(w.value);
    }
    const reader = contentReader(toWords(expanded));
    if (!reader) return;
    if (reader.kind === 'list') {
      this.cannotRuleOut(reader.reason, subcommand);
      return;
    }
    this.dirReader(reader, subcommand);
  }

  private dirReader(reader: DirReader, subcommand: string): void {
    let bases: string[] = this.state.unknown ? [] : [...this.state.dirs];
    if (reader.base !== undefined) {
      const b = resolveExact(reader.base, this.state, this.home);
      if (!b) return this.cannotRuleOut(`where ${reader.tool} runs cannot be known`, subcommand);
      bases = b;
    }
    const base: CwdState = { dirs: bases, unknown: bases.length === 0 };
    const targets: string[] = [];
    for (const dir of reader.dirs) {
      const resolved = resolveExact(dir, base, this.home);
      if (!resolved) return this.cannotRuleOut(`where ${short(dir)} points cannot be known`, subcommand);
      targets.push(...resolved);
    }
    if (reader.mayBeRevisions && !targets.every((t) => existsSync(t))) targets.push(...bases);
    for (const abs of targets) {
      if (this.checkAbs(abs, subcommand)) continue;
      // Only an existing directory has contents to read (a file argument was checked by name; an archive being
      // written does not exist yet). Unreadable: judged as a directory.
      let isDir = true;
      try {
        isDir = statIfExists(abs)?.isDirectory() ?? false;
      } catch {
        // keep isDir
      }
      if (!isDir) continue;
      if (reader.follows) {
        const instead = reader.followHint ? `; ${reader.followHint}` : reader.search ? '; search with the Grep tool instead' : '';
        this.ask(this.first, `${reader.tool} follows symbolic links, so from ${abs} it could reach files denied by ${ruleText(this.first)} anywhere${instead}`, subcommand);
        return;
      }
      for (const hit of denyPatternsInside(this.scope, abs, this.realCache)) {
        const open = hit.remainders.map(excludedName).filter((n) => !(n && reader.excludes?.(n.segment, n.dir)));
        if (open.length === 0) continue;
        const name = open.find((n) => n !== undefined);
        const exclude = name && reader.hint ? reader.hint(name.segment, name.dir) : undefined;
        const fix = reader.search
          ? `; search with the Grep tool (it leaves denied files out)${exclude ? ` or add ${exclude}` : ''}`
          : exclude ? `; add ${exclude} to leave them out` : '';
        const verb = hit.pattern.segments[0] === '**' ? 'may hold' : 'holds';
        this.ask(hit.pattern, `${reader.tool} would ${reader.search ? "search" : "read"} ${abs}, which ${verb} files denied by ${ruleText(hit.pattern)}${fix}`, subcommand);
        return;
      }
      const linked = this.hardLinked();
      if (linked) {
        this.ask(linked.pattern, `${reader.tool} would read ${abs}, and ${linked.path} (denied by ${ruleText(linked.pattern)}) has hard links that could be inside it`, subcommand);
        return;
      }
    }
  }
}

/** The Read deny verdict on a command: a certain deny, an ask that bypass cannot pass, or nothing to say. */
export function checkReadDenies(analysis: BashAnalysis, subs: readonly SimpleCommand[], ctx: ToolPermissionContext, deps: BashPermissionDeps): ReadDenyFinding | undefined {
  const scope = readDenyScope(ctx);
  if (!scope) return undefined;
  const judge = new Judge(scope, ctx, deps, subs);
  for (const sub of subs) {
    judge.subcommand(sub);
    if (judge.denied) return judge.denied;
  }
  if (!analysis.ok) for (const segment of analysis.rawSegments) judge.rawSegment(segment);
  return judge.denied ?? judge.asked;
}

/** For a command that cannot be analysed: an ask naming a Read deny rule, when there is one. */
export function readDenyOpaqueAsk(ctx: ToolPermissionContext, why: string, subcommand: string): ReadDenyFinding | undefined {
  const scope = readDenyScope(ctx);
  if (!scope) return undefined;
  const pattern = scope.patterns[0]!;
  const reason = `cannot rule out Read deny ${ruleText(pattern)}: ${why}`;
  return { kind: 'ask', message: `Cannot rule out Read deny ${ruleText(pattern)}: ${why}.`, trace: askRuleTrace(pattern, reason, subcommand) };
}
