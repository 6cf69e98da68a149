/**
 * The answers of `toolgate check --batch`, one per line. A batch repeats itself (a policy suite runs the same calls
 * under several modes and rule sets, a replayed transcript runs `git status` many times), so an answer is reused for
 * a line identical to an earlier one, or identical but for the id it starts with (sameButId) — but only when nothing
 * the first decision learnt has changed: every filesystem
 * question it asked (permissions/observed-fs.ts: real paths, stats, links, directory listings, gitdir files) is asked
 * again and must get the same answer. A file created, removed or retargeted in between fails that, and the line is
 * decided afresh: facts are never carried from one request to the next, only re-checked.
 *
 * What else a decision reads is part of the line (tool, input, cwd, home, mode, rules…), fixed for the process (the
 * command line's defaults, the OS home and environment), read once per context (its settings files, watched by the
 * caller — check.ts, once per chunk of stdin: one that changed, or a linked cwd retargeted at another project, makes
 * the engine forget its contexts, and the remembered answers go with them), or a reason not to reuse it: the clock (a rule with
 * `expiresAt`), a tool whose checks were not audited for this (isReusable), an error, or anything odd while
 * recording (observeFacts). A DNS answer WebFetch consulted is a fact like the others: asked again (from the
 * resolver's short-lived cache, as a new decision would). When unsure, decide again.
 */
import { observeFacts, openFactWindow, stillHolds, type FactMemo, type Observations } from '../../permissions/observed-fs.js';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import type { AnyTool } from '../../tool/tool.js';
import type { CheckEngine, CheckOutput } from './check-request.js';
import { isStandIn } from './check-tools.js';

export type LineAnswer = ({ id?: unknown } & CheckOutput) | { id?: unknown; error: string };

/** An answer as written (one JSON line, without its newline), and what it is for `--fail-on`. */
export interface AnsweredLine {
  readonly text: string;
  readonly kind: CheckOutput['behavior'] | 'error';
}

/**
 * Bounds on what is remembered: lines, and characters held (lines, answers, facts; an answer decided again counts
 * anew until everything is forgotten); no line longer than the cap.
 */
const MAX_REMEMBERED = 10_000;
const MAX_SEEN_ONCE = 100_000;
const MAX_CHARS = 32 * 1024 * 1024;
const MAX_LINE_CHARS = 64 * 1024;

/**
 * A line's leading id, when JSON writes it back exactly as the line spells it (an integer of up to 15 digits, a string
 * without escapes, surrogates or control characters): the answer begins with the same text, so an answer remembered
 * for the rest of the line is this line's answer with its own id in front.
 */
const LEADING_ID = /^\{"id":(?:0|-?[1-9]\d{0,14}|"[ !#-[\]-\ud7ff\ue000-\uffff]{0,256}"),/;

/**
 * The key a line is remembered by, and the text its answer starts with that the remembered answer leaves out. A suite
 * gives every case an id (`{"id":1,…}`, `{"id":2,…}`): the id is only copied to the answer, so lines equal but for it
 * ask the same question. Keyed by the rest after a NUL — no JSON line starts with one, and answer() looks up no line
 * that does, so it is never a whole line's key — unless the rest may name an id again: `"id"`, or any \u escape,
 * which can spell it (JSON.parse keeps the last one, and the leading one would not be the answer's).
 */
function sameButId(line: string): { key: string; prefix: string } {
  const id = LEADING_ID.exec(line);
  if (id === null || line.includes('"id"', id[0].length) || line.includes('\\u', id[0].length)) return { key: line, prefix: '' };
  return { key: `\0${line.slice(id[0].length)}`, prefix: id[0] };
}

export class BatchAnswers {
  readonly #engine: CheckEngine;
  /** By sameButId's key: the answer's text after the prefix its line began with, and the facts behind it. */
  readonly #known = new Map<string, { readonly answer: AnsweredLine; readonly facts: Observations }>();
  /**
   * Lines seen once, by a hash of their text: a line is recorded and remembered from its second time on, so a batch
   * of distinct requests (a suite whose every line has its own id) pays neither for recording nor for keeping what
   * it will never ask again. Two lines with one hash only make the second recorded at once.
   */
  readonly #seenOnce = new Set<number>();
  #chars = 0;
  #epoch: number;
  /**
   * Outside answerChunk, the facts re-checked since the last turn of the microtask queue (stillHolds' `asked`): lines
   * answered from memory one after another, with nothing else running between them, see one state of the disk and ask
   * a shared path once. Emptied at the next microtask: whatever changes the disk (another process, a test between two
   * lines) is seen by the re-checks after the caller's next await. Only re-checks read it; a fresh decision asks the
   * disk itself.
   */
  #asked: Map<string, string> | undefined;
  /** The re-checks' answers while answerChunk decides a chunk: shared by the whole chunk, as its fact window is. */
  #chunkFacts: FactMemo | undefined;

  constructor(engine: CheckEngine) {
    this.#engine = engine;
    this.#epoch = engine.contextEpoch;
  }

  /**
   * The answers to the lines of one chunk of input (each without its newline; a trailing `\r` is dropped), one line
   * each, in order, and the kinds among them. Every line of the chunk had arrived before its first fact is asked, so
   * they share each answer the filesystem gives while they are decided (observed-fs.ts openFactWindow); the window
   * closes before the next chunk, whose lines may have been sent after a change.
   */
  async answerChunk(lines: readonly string[]): Promise<{ text: string; kinds: ReadonlySet<AnsweredLine['kind']> }> {
    let text = '';
    const kinds = new Set<AnsweredLine['kind']>();
    const window = openFactWindow();
    this.#chunkFacts = new Map();
    try {
      for (const raw of lines) {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        // Every line gets its answer (a blank one too): answers pair with requests by position.
        const pending = this.answer(line);
        const result = pending instanceof Promise ? await pending : pending;
        kinds.add(result.kind);
        text += `${result.text}\n`;
      }
    } finally {
      window.close();
      this.#chunkFacts = undefined;
    }
    return { text, kinds };
  }

  /**
   * The answer to one line (already without its line ending). Not a promise when a remembered answer still holds
   * without waiting for anything: most lines of a repetitive batch, each spared a turn of the microtask queue.
   */
  answer(line: string): AnsweredLine | Promise<AnsweredLine> {
    if (this.#engine.contextEpoch !== this.#epoch) this.#forget();
    // A line starting with a NUL is not JSON, but spelt as a key sameButId makes for another line: decided (an error).
    if (line.charCodeAt(0) === 0) return answerOf(decideLine(this.#engine, line));
    const { key, prefix } = sameButId(line);
    const known = this.#known.get(key);
    if (known === undefined) {
      const hash = lineHash(key);
      if (this.#seenOnce.delete(hash)) return this.#decide(line, key, prefix);
      if (this.#seenOnce.size >= MAX_SEEN_ONCE) this.#seenOnce.clear();
      this.#seenOnce.add(hash);
      return answerOf(decideLine(this.#engine, line));
    }
    const holds = stillHolds(known.facts, this.#recheckScope());
    if (holds === true) return withPrefix(known.answer, prefix);
    if (holds === false) return this.#decide(line, key, prefix);
    return holds.then((still) => (still ? withPrefix(known.answer, prefix) : this.#decide(line, key, prefix)));
  }

  async #decide(line: string, key: string, prefix: string): Promise<AnsweredLine> {
    this.#known.delete(key);
    const { result, observations } = await observeFacts(() => decideLine(this.#engine, line));
    const answer = await answerOf(result);
    // The answer's own text must begin with the line's id as the line spells it, or it cannot be rebuilt for another id.
    if (observations !== undefined && result.reusable && line.length <= MAX_LINE_CHARS && answer.text.startsWith(prefix)) {
      const rest: AnsweredLine = { text: answer.text.slice(prefix.length), kind: answer.kind };
      let chars = key.length + rest.text.length;
      for (let i = 0; i < observations.facts.length; i++) chars += observations.paths[i]!.length + observations.facts[i]!.length;
      if (this.#known.size >= MAX_REMEMBERED || this.#chars + chars > MAX_CHARS) this.#forget();
      this.#known.set(ownCopy(key), { answer: rest, facts: observations });
      this.#chars += chars;
    }
    return answer;
  }

  #recheckScope(): FactMemo {
    if (this.#chunkFacts !== undefined) return this.#chunkFacts;
    if (this.#asked === undefined) {
      this.#asked = new Map();
      queueMicrotask(() => {
        this.#asked = undefined;
      });
    }
    return this.#asked;
  }

  #forget(): void {
    this.#known.clear();
    this.#chars = 0;
    this.#epoch = this.#engine.contextEpoch;
  }
}

const withPrefix = (rest: AnsweredLine, prefix: string): AnsweredLine => (prefix === '' ? rest : { text: prefix + rest.text, kind: rest.kind });

async function answerOf(decided: { answer: LineAnswer } | Promise<{ answer: LineAnswer }>): Promise<AnsweredLine> {
  const { answer } = await decided;
  return { text: JSON.stringify(answer), kind: 'error' in answer ? 'error' : answer.behavior };
}

/**
 * The line as a string of its own: a line split from a chunk of stdin is a slice that keeps the whole chunk alive,
 * and a remembered line would hold on to its chunk for the life of the batch. JSON round-trips every string exactly.
 */
const ownCopy = (line: string): string => JSON.parse(JSON.stringify(line)) as string;

/** FNV-1a over the UTF-16 code units: cheap, and a collision costs only an early recording. */
function lineHash(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

async function decideLine(engine: CheckEngine, line: string): Promise<{ answer: LineAnswer; reusable: boolean }> {
  if (line.trim() === '') return { answer: { error: 'blank line: no request' }, reusable: false };
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { answer: { error: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` }, reusable: false };
  }
  // The request's id first, on the answer and on an error alike, so a reader can pair them without counting lines.
  const id = request !== null && typeof request === 'object' && !Array.isArray(request) && 'id' in request ? { id: (request as { id: unknown }).id } : {};
  try {
    const result = await engine.decide(request, { fromJson: true });
    return { answer: { ...id, ...result.output }, reusable: isReusable(result.tool, result.ctx) };
  } catch (error) {
    return { answer: { ...id, error: error instanceof Error ? error.message : String(error) }, reusable: false };
  }
}

/**
 * The built-in tools whose part in a decision (input schema, backfill, getPath, isReadOnly, checkPermissions) reads
 * nothing but the input, the context and facts observed through permissions/observed-fs.ts (WebFetch's DNS answer
 * too) — checked by reading them. Another built-in is decided afresh for
 * every line; a stand-in (check-tools.ts) reads only its input.
 */
const FACT_BOUND_TOOLS: ReadonlySet<string> = new Set(['Read', 'Edit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'Bash', 'WebFetch']);

export function isReusable(tool: AnyTool, ctx: ToolPermissionContext): boolean {
  if (!isStandIn(tool) && !FACT_BOUND_TOOLS.has(tool.name)) return false;
  // A rule that expires makes the decision depend on the clock (rule-expiry.ts).
  for (const rules of [ctx.alwaysAllowRules, ctx.alwaysDenyRules, ctx.alwaysAskRules]) if (rules.some((r) => r.expiresAt !== undefined)) return false;
  return true;
}
