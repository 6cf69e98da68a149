/**
 * `analyzeBashCommand`: parse once (a plain command in JS, anything else with tree-sitter-bash) and reduce the command to the simple commands that can
 * run, each with its literal words, redirects, the argv allow rules see (wrappers stripped), the argv views deny
 * rules see (through `sudo`, `env`, `bash -c '…'`, …) and why it cannot be reasoned about, if it cannot.
 */
import { BashParserNotLoadedError, isBashParserLoaded, parseBash, type SyntaxNode } from './parser.js';
import { parseSimpleCommand } from './simple-command.js';
import { loopSubstituted } from './loop-values.js';
import type { BashAnalysis, SimpleCommand } from './types.js';
import type { MatchWord } from './rule-match.js';
import { Walker, type RawCommand } from './walker.js';
import { checkCommandCharacters, hasNonAscii } from './unicode.js';
import { denyViews, shellCodeIndex, SHELLS, stripAllowWrappers } from './wrappers.js';
import { shellStartupReason } from './shell-options.js';
import { assignmentName, isStrippableAssignmentName } from './assignments.js';
import { checkNameBuiltin } from './syntax-checks.js';
import { naiveWords, rawSegments } from './raw-split.js';
import { treeMismatch } from './syntax-agreement.js';
import { localeSwitchReason } from './locale-switch.js';

/** Longer commands always ask (documented Claude Code behaviour); they are still parsed for deny rules. */
export const MAX_COMMAND_LENGTH = 10_000;
const MAX_PARSE_LENGTH = 100_000;
const MAX_NESTING = 4;

const literalWord = (value: string): MatchWord => ({ value, literal: true });

/** Where tree-sitter and bash disagree: `r\<newline>m` is one word (`rm`) to bash but two to tree-sitter. */
function lineContinuationMismatch(source: string, root: SyntaxNode): string | undefined {
  let at = source.indexOf('\\\n');
  while (at !== -1) {
    let backslashes = 0;
    for (let i = at; i >= 0 && source[i] === '\\'; i--) backslashes++;
    const before = source[at - backslashes];
    const after = source[at + 2];
    if (backslashes % 2 === 1 && before !== undefined && after !== undefined && !/\s/.test(before) && !/\s/.test(after)) {
      const node = root.descendantForIndex(at);
      let inert = false;
      for (let n: SyntaxNode | null = node; n; n = n.parent) {
        if (['raw_string', 'string', 'heredoc_body', 'comment', 'ansi_c_string'].includes(n.type)) {
          inert = true;
          break;
        }
      }
      if (!inert) return 'a line continuation joins two words (bash and the parser would disagree)';
    }
    at = source.indexOf('\\\n', at + 2);
  }
  return undefined;
}

interface NestedCode {
  readonly depth: number;
  readonly unsafe: string[];
  readonly denyWords: (readonly MatchWord[])[];
  analysed: Map<string, BashAnalysis> | undefined;
}

/** Analyse a code string a command runs (`bash -c`, `eval`, …): its deny views and unsafe constructs become ours. */
function analyseCode(nested: NestedCode, code: string, via: string): BashAnalysis | undefined {
  const cached = nested.analysed?.get(code);
  if (cached) return cached;
  if (nested.depth + 1 > MAX_NESTING) {
    nested.unsafe.push(`${via} nested too deeply`);
    for (const seg of rawSegments(code)) nested.denyWords.push(naiveWords(seg).map(literalWord));
    return undefined;
  }
  const inner = analyzeInternal(code, nested.depth + 1);
  (nested.analysed ??= new Map()).set(code, inner);
  for (const sub of inner.subcommands) {
    nested.denyWords.push(...sub.denyWords);
    if (sub.unsafeReason) nested.unsafe.push(`inside ${via}: ${sub.unsafeReason}`);
  }
  if (!inner.ok) {
    nested.unsafe.push(`cannot analyse the ${via} string: ${inner.reason}`);
    for (const seg of inner.rawSegments) nested.denyWords.push(naiveWords(seg).map(literalWord));
  }
  return inner;
}

function finishCommand(raw: RawCommand, depth: number): SimpleCommand {
  const unsafe = [...raw.unsafe];
  const words = raw.words;
  const name = words[0];
  if (raw.kind === 'command' && name) {
    if (!name.literal) unsafe.push('expansion in command position');
    else if (name.glob) unsafe.push('glob pattern in command position');
    else if (hasNonAscii(name.value)) unsafe.push('non-ASCII command name (look-alike risk)');
    else if (name.value === '') unsafe.push('empty command name');
  }
  if (words.some((w) => w.unquotedNonAscii)) unsafe.push('non-ASCII characters outside quotes (look-alike risk)');

  const core = stripAllowWrappers(words);
  const kept = raw.assignments.filter((a) => !isStrippableAssignmentName(assignmentName(a)));
  const strippedWords: MatchWord[] = [...kept.map(literalWord), ...core];
  if (core !== words && core[0] && !core[0].literal) unsafe.push('expansion in command position');
  const builtinReason =
    raw.kind === 'command' ? (checkNameBuiltin(words) ?? (core !== words ? checkNameBuiltin(core as typeof words) : undefined)) : undefined;
  if (builtinReason) unsafe.push(builtinReason);
  if (core[0]?.literal && core[0].value === 'eval') unsafe.push('eval runs a string as a command');

  const dv = denyViews(words);
  const denyWords: (readonly MatchWord[])[] = dv.views.length === 1 ? [dv.views[0]!] : [...dv.views];
  if (dv.opaqueCode) unsafe.push(dv.opaqueCode);
  const nested: NestedCode = { depth, unsafe, denyWords, analysed: undefined };
  for (const c of dv.code) analyseCode(nested, c.code, c.via);

  // A literal `bash -c '…'` (or a heredoc / here-string fed to a shell) is judged by the commands it runs.
  let inner: readonly SimpleCommand[] | undefined;
  const shell = core[0]?.literal ? core[0].value : undefined;
  // `BASH_ENV=evil.sh bash -c 'ls'` runs evil.sh first: only harmless assignments let a shell be judged by its code.
  if (shell !== undefined && SHELLS.has(shell.slice(shell.lastIndexOf('/') + 1))) {
    // A login or interactive shell, an rc file, shopt settings, fish: more runs than the code says (shell-options.ts).
    const startup = shellStartupReason(core);
    if (startup) unsafe.push(startup);
  }
  if (shell !== undefined && SHELLS.has(shell.slice(shell.lastIndexOf('/') + 1)) && kept.length === 0) {
    const at = shellCodeIndex(core);
    if (at >= 0 && core[at]!.literal) {
      const a = analyseCode(nested, core[at]!.value, `${shell} -c`);
      if (a?.ok) inner = a.subcommands;
    } else if (at === -1 && raw.stdin && core.slice(1).every((w) => w.literal && /^[-+]/.test(w.value))) {
      if (raw.stdin.code === null) unsafe.push(`heredoc or here-string with expansions fed to ${shell}`);
      else {
        const a = analyseCode(nested, raw.stdin.code, `${shell} stdin`);
        if (a?.ok) inner = a.subcommands;
      }
    } else if (at === -1 && raw.pipedInto && core.slice(1).every((w) => w.literal && /^[-+]/.test(w.value))) {
      // `… | sh`: the commands come from another program's output.
      unsafe.push(`${shell} runs commands read from a pipe`);
    }
  }

  const argv = name && !name.literal ? null : words.map((w) => w.value);
  return {
    kind: raw.kind,
    text: raw.text,
    argv,
    words,
    assignments: raw.assignments,
    redirects: raw.redirects,
    strippedArgv: strippedWords.some((w, i) => i === kept.length && !w.literal) ? null : strippedWords.map((w) => w.value),
    strippedWords,
    denyCandidates: denyWords.map((v) => v.map((w) => w.value)),
    denyWords,
    ...(inner ? { inner } : {}),
    ...(unsafe.length > 0 ? { unsafeReason: unsafe[0] } : {}),
    ...(raw.paramExpansion !== undefined ? { paramExpansion: raw.paramExpansion } : {}),
  };
}

/** When the whole command is one chain of `&&`, its top-level `cd`s certainly happened before what follows. */
function markCertainCds(root: SyntaxNode, walker: Walker): void {
  const statements = root.namedChildren.filter((c) => c.type !== 'comment');
  if (statements.length !== 1) return;
  const elements: SyntaxNode[] = [];
  const flatten = (n: SyntaxNode): boolean => {
    if (n.type !== 'list') {
      elements.push(n);
      return true;
    }
    const [left, op, right] = n.children;
    return !!left && !!right && op?.type === '&&' && flatten(left) && flatten(right);
  };
  if (!flatten(statements[0]!)) return;
  for (const element of elements) {
    const node = element.type === 'redirected_statement' ? element.namedChildren[0] : element;
    const sub = node && walker.byNode.get(node);
    const name = sub?.argv?.[0];
    if (sub && (name === 'cd' || name === 'pushd')) (sub as { cdCertain?: boolean }).cdCertain = true;
  }
}

type Analysis = BashAnalysis & { readonly subcommands: readonly SimpleCommand[] };

function fail(command: string, reason: string, subcommands: readonly SimpleCommand[]): Analysis {
  return { ok: false, reason, rawSegments: rawSegments(command), subcommands };
}

export function analyzeInternal(command: string, depth: number): Analysis {
  const charReason = checkCommandCharacters(command);
  if (command.length > MAX_PARSE_LENGTH) {
    return fail(command, charReason ?? `command is ${command.length} characters (limit ${MAX_COMMAND_LENGTH})`, []);
  }
  const walker = new Walker((raw) => finishCommand(raw, depth));
  let parsed: ReturnType<typeof parseBash>;
  try {
    parsed = parseSimpleCommand(command) ?? parseBash(command);
    if (!parsed) return fail(command, charReason ?? 'the parser gave up on this command', []);
    // A loop's `"$f"` judged as the loop's glob (loop-values.ts): only what the judgement reads changes.
    const substituted = depth === 0 && !parsed.hasError && charReason === undefined ? loopSubstituted(command, parsed.root) : undefined;
    if (substituted !== undefined) return analyzeInternal(substituted, 0);
    walker.walk(parsed.root);
  } catch (error) {
    if (error instanceof BashParserNotLoadedError) parserMisses++;
    // Pathological nesting can exhaust the stack: what we cannot walk we do not allow.
    const why =
      error instanceof RangeError
        ? 'the command is nested too deeply to analyse'
        : error instanceof BashParserNotLoadedError
          ? error.message
          : `analysis failed: ${String(error)}`;
    return fail(command, charReason ?? why, walker.commands);
  }
  if (parsed.hasMissing) walker.parseError ??= 'incomplete command (the parser had to insert a missing token)';
  else if (parsed.hasError) walker.parseError ??= 'syntax error';
  const continuation = command.includes('\\\n') ? lineContinuationMismatch(command, parsed.root) : undefined;
  const mismatch = continuation === undefined ? treeMismatch(command, parsed.root) : undefined;
  const reason =
    charReason ??
    (depth === 0 && command.length > MAX_COMMAND_LENGTH ? `command is ${command.length} characters (limit ${MAX_COMMAND_LENGTH})` : undefined) ??
    (walker.parseError ? `parse error: ${walker.parseError}` : undefined) ??
    continuation ??
    (mismatch !== undefined ? `the parser and bash would read ${JSON.stringify(mismatch.trim().slice(0, 30))} differently` : undefined) ??
    localeSwitchReason(command, walker.commands, walker.names);
  if (reason) return fail(command, reason, walker.commands);
  if (depth === 0) markCertainCds(parsed.root, walker);
  return { ok: true, subcommands: walker.commands, names: walker.names };
}

/** Analyses (at any depth) that needed the wasm parser before it was loaded: they failed closed. */
let parserMisses = 0;

const cache = new Map<string, Analysis>();
const CACHE_SIZE = 256;

/**
 * Analyse a command (synchronous; results for recent commands are cached because a tool call checks the same
 * command several times: permissions, read-only, concurrency safety). Plain commands (simple-command.ts) analyse at
 * once; any other needs `loadBashParser()` first: until it has resolved, such a command is "cannot analyse" (the
 * engine asks; read-only is false). `needsBashParser` tells which.
 */
export function analyzeBashCommand(command: string): Analysis {
  const hit = cache.get(command);
  if (hit) {
    cache.delete(command);
    cache.set(command, hit);
    return hit;
  }
  const misses = parserMisses;
  const result = analyzeInternal(command, 0);
  // A command (or code it runs) that needed the parser before it loaded failed closed: not an answer to remember.
  if (parserMisses !== misses) return result;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(command, result);
  return result;
}

/**
 * Whether judging this command needs the wasm parser loaded first: false once it is, and for a command whose every
 * part (nested `bash -c` code included) is plain enough to parse without it (the analysis is then done, and cached).
 */
export function needsBashParser(command: string): boolean {
  if (isBashParserLoaded()) return false;
  const misses = parserMisses;
  analyzeBashCommand(command);
  return parserMisses !== misses;
}
