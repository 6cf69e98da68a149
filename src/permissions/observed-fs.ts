/**
 * Every filesystem fact the permission engine consults, through one door. Each function here is the `node:fs` call its
 * name says, with the same results and errors; while a recording is open (`observeFacts`), it also notes what it asked
 * and what it learnt, reduced to a string (a Stats to its identity, type, size and times; an error to its code).
 *
 * Why: a decision is a function of its request and of these facts. `toolgate check --batch` answers the same request
 * many times; it may reuse an earlier decision only if asking every one of that decision's questions again now gets
 * the same answers (`stillHolds`) — a file created, removed or retargeted in between changes an answer, and the
 * decision is made afresh. Nothing here caches: each replay asks the filesystem again.
 *
 * A question that is not about the filesystem but can be asked again the same way (WebFetch's DNS answer, from the
 * resolver or its short-lived cache) is an AsyncQuestion its owner defines and asks through `observedAsync`. Every
 * `node:fs` import under permissions/ goes through this file (observed-fs.test.ts checks), so a new filesystem
 * question cannot slip past.
 */
import fs from 'node:fs';

type Stats = fs.Stats;

/** One kind of question: how to ask it, and what of the answer a decision can depend on. */
interface Question {
  readonly ask: (p: string) => unknown;
  readonly fact: (answer: unknown) => string;
  /**
   * The fact asked afresh without throwing for a missing path (stillHolds asks many such per reused verdict, and an
   * error's stack costs more than the stat): the text errorFact gives Node's error. A text that does not match only
   * costs a reuse — the verdict is judged again.
   */
  readonly factNow?: (p: string) => string;
}

/** errorFact of Node's ENOENT error for `syscall` on `p`, without making the error. */
const missingFact = (syscall: string, p: string): string => `!ENOENT:ENOENT: no such file or directory, ${syscall} '${p}'`;

/**
 * Everything a caller may read from a Stats but its access time (which a read elsewhere changes, and no permission
 * check looks at): equal facts mean the same file, of the same type, size and contents as far as its times tell.
 */
function statFact(st: unknown): string {
  if (st === undefined) return '-';
  const s = st as Stats | fs.BigIntStats;
  const times = 'mtimeNs' in s ? `${s.mtimeNs}:${s.ctimeNs}:${s.birthtimeNs}` : `${s.mtimeMs}:${s.ctimeMs}:${s.birthtimeMs}`;
  return `${s.dev}:${s.ino}:${s.mode}:${s.nlink}:${s.uid}:${s.gid}:${s.rdev}:${s.size}:${times}`;
}

const direntType = (d: fs.Dirent): string =>
  d.isFile() ? 'f' : d.isDirectory() ? 'd' : d.isSymbolicLink() ? 'l' : d.isFIFO() ? 'p' : d.isSocket() ? 's' : d.isCharacterDevice() ? 'c' : d.isBlockDevice() ? 'b' : '?';

const text = (answer: unknown): string => answer as string;

const QUESTIONS: readonly Question[] = [
  { ask: (p) => fs.existsSync(p), fact: (a) => (a ? '1' : '0') },
  { ask: (p) => fs.realpathSync.native(p), fact: text },
  { ask: (p) => fs.lstatSync(p, { throwIfNoEntry: false }), fact: statFact },
  {
    ask: (p) => fs.lstatSync(p),
    fact: statFact,
    factNow: (p) => {
      const st = fs.lstatSync(p, { throwIfNoEntry: false });
      return st === undefined ? missingFact('lstat', p) : statFact(st);
    },
  },
  { ask: (p) => fs.statSync(p, { throwIfNoEntry: false }), fact: statFact },
  {
    ask: (p) => fs.statSync(p),
    fact: statFact,
    factNow: (p) => {
      const st = fs.statSync(p, { throwIfNoEntry: false });
      return st === undefined ? missingFact('stat', p) : statFact(st);
    },
  },
  { ask: (p) => fs.statSync(p, { throwIfNoEntry: false, bigint: true }), fact: statFact },
  { ask: (p) => fs.readlinkSync(p), fact: text },
  { ask: (p) => fs.readFileSync(p, 'utf8'), fact: text },
  { ask: (p) => fs.readdirSync(p), fact: (a) => (a as string[]).join('\0') },
  { ask: (p) => fs.readdirSync(p, { withFileTypes: true }), fact: (a) => (a as fs.Dirent[]).map((d) => `${d.name}/${direntType(d)}`).join('\0') },
];
/** A question answered asynchronously, defined by the code that asks it (one object per kind of question). */
export interface AsyncQuestion {
  readonly ask: (key: string) => Promise<unknown>;
  /** What of the answer a decision can depend on, as a string. */
  readonly fact: (answer: unknown) => string;
}

/** Indexes into QUESTIONS. */
const Q = {
  Exists: 0,
  Realpath: 1,
  Lstat: 2,
  LstatOrThrow: 3,
  Stat: 4,
  StatOrThrow: 5,
  StatBigInt: 6,
  Readlink: 7,
  ReadText: 8,
  Readdir: 9,
  ReaddirTypes: 10,
} as const;

/** An error as a fact: its code (and message, which names the call) — what a caller branches on. */
function errorFact(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return `!${e?.code ?? ''}:${e instanceof Error ? e.message : String(error)}`;
}

/** The facts one recording learnt, each question once: a filesystem question by its index, or an AsyncQuestion. */
export interface Observations {
  readonly questions: readonly (number | AsyncQuestion)[];
  readonly paths: readonly string[];
  readonly facts: readonly string[];
}

class Recording implements Observations {
  readonly questions: (number | AsyncQuestion)[] = [];
  readonly paths: string[] = [];
  readonly facts: string[] = [];
  readonly #seen = new Map<string, string>();
  readonly #asked = new Map<AsyncQuestion, number>();
  /** Set when the recording cannot stand for what the decision depended on. */
  spoilt = false;

  note(q: number | AsyncQuestion, p: string, fact: string): void {
    let id = q;
    if (typeof q !== 'number') {
      id = this.#asked.get(q) ?? -1 - this.#asked.size;
      this.#asked.set(q, id);
    }
    const key = `${id}\0${p}`;
    const known = this.#seen.get(key);
    if (known !== undefined) {
      // The same question answered twice alike is one fact; answered differently (the filesystem changed during the
      // decision), no replay can reproduce both: not reusable.
      if (known !== fact) this.spoilt = true;
      return;
    }
    this.#seen.set(key, fact);
    this.questions.push(q);
    this.paths.push(p);
    this.facts.push(fact);
  }
}

const open = new Set<Recording>();

/** The question asked while recordings are open: its answer (or failure) noted in each. */
function observed<T>(q: number, p: string): T {
  const question = QUESTIONS[q]!;
  let answer: unknown;
  try {
    answer = question.ask(p);
  } catch (error) {
    for (const r of open) r.note(q, p, errorFact(error));
    throw error;
  }
  const fact = question.fact(answer);
  for (const r of open) r.note(q, p, fact);
  return answer as T;
}

/** `question.ask(key)`, its answer (or failure) noted as a fact like a filesystem one. */
export async function observedAsync<T>(question: AsyncQuestion, key: string): Promise<T> {
  if (open.size === 0) return (await question.ask(key)) as T;
  // Noted in every recording open now or when the answer comes (an overlap spoils them all anyway).
  let answer: unknown;
  try {
    answer = await question.ask(key);
  } catch (error) {
    for (const r of open) r.note(question, key, errorFact(error));
    throw error;
  }
  const fact = question.fact(answer);
  for (const r of open) r.note(question, key, fact);
  return answer as T;
}

/**
 * Answers already given inside the current `withFsMemo` call (or the open fact window), by question and path (an
 * error as the error). Undefined outside both.
 */
let memo: Map<string, { readonly value?: unknown; readonly error?: unknown }> | undefined;

/**
 * The open fact window's answers (openFactWindow), undefined when none is open: withFsMemo scopes inside it share
 * them, and so does a question asked outside any scope.
 */
let window: Map<string, { readonly value?: unknown; readonly error?: unknown }> | undefined;

/**
 * Runs `check` (a synchronous check: checkBashPermission, checkPathPermission) with each metadata question answered
 * once: asked again inside it, the same question on the same path gets the first answer. One check resolves the same
 * paths many times (the cwd for every word, a rule's base for every rule, a repository's files for every git word),
 * each a syscall and a realpath several. Safe because the scope is one synchronous call: nothing is carried to a later
 * check, and the answers one check sees are one state of the disk — a file swapped between two of its questions can
 * no longer make them disagree. File contents and listings are not remembered. Inside an open fact window the scope
 * is the window's (see openFactWindow).
 */
export function withFsMemo<T>(check: () => T): T {
  if (memo !== undefined) return check();
  memo = window ?? new Map();
  memoScopes++;
  try {
    return check();
  } finally {
    memo = undefined;
  }
}

/**
 * Opens a fact window: until `close()`, every metadata question (exists, realpath, lstat, stat, readlink — never a
 * file's contents or a listing) is asked once and its answer given to every later check that asks it, in whichever
 * decision. For a caller that decides requests which had all arrived before the window opened (`check --batch`: the
 * lines of one chunk of stdin): every answer given in the window was asked after each of those requests was sent, so
 * a change made before any of them is seen, exactly as deciding them one by one would see it; a change made while
 * they are decided may be seen by some and not others, as it would be one by one. The caller closes the window
 * before it decides anything that arrived later. One window at a time, for the whole process: its owner must be the
 * only thing deciding while it is open (the batch command is). A question answered from the window is noted in every
 * recording open now (observeFacts), so a decision remembered for reuse still re-checks everything it depended on.
 */
export function openFactWindow(): { close(): void } {
  if (window !== undefined) throw new Error('a fact window is already open');
  const own = (window = new Map());
  return {
    close() {
      if (window === own) window = undefined;
    },
  };
}

/** Counts withFsMemo scopes: each has its own number. */
let memoScopes = 0;

/**
 * The number of the current withFsMemo scope, undefined outside one: a caller that keeps something bound to
 * filesystem facts confirms them once per scope — one state of the disk — instead of at every call.
 */
export function fsMemoScope(): number | undefined {
  return memo === undefined ? undefined : memoScopes;
}

function ask<T>(q: number, p: string, direct: () => T): T {
  const m = memo ?? window;
  if (m === undefined) return open.size === 0 ? direct() : observed<T>(q, p);
  const key = `${q}\0${p}`;
  const known = m.get(key);
  if (known !== undefined) {
    // Asked before, maybe by another decision of the window: this one's recordings learn it too.
    if (open.size > 0) {
      const fact = 'error' in known ? errorFact(known.error) : QUESTIONS[q]!.fact(known.value);
      for (const r of open) r.note(q, p, fact);
    }
    if ('error' in known) throw known.error;
    return known.value as T;
  }
  try {
    const value = open.size === 0 ? direct() : observed<T>(q, p);
    m.set(key, { value });
    return value;
  } catch (error) {
    m.set(key, { error });
    throw error;
  }
}

// Each with the plain call first: with no recording open (every caller but toolgate check --batch), a direct call.
export const existsSync = (p: string): boolean => ask(Q.Exists, p, () => fs.existsSync(p));
/** `fs.realpathSync.native`. */
export const realpathNative = (p: string): string => ask(Q.Realpath, p, () => fs.realpathSync.native(p));
/** `fs.lstatSync(p, { throwIfNoEntry: false })`. */
export const lstatIfExists = (p: string): Stats | undefined => ask(Q.Lstat, p, () => fs.lstatSync(p, { throwIfNoEntry: false }));
export const lstatSync = (p: string): Stats => ask(Q.LstatOrThrow, p, () => fs.lstatSync(p));
/** `fs.statSync(p, { throwIfNoEntry: false })`. */
export const statIfExists = (p: string): Stats | undefined => ask(Q.Stat, p, () => fs.statSync(p, { throwIfNoEntry: false }));
export const statSync = (p: string): Stats => ask(Q.StatOrThrow, p, () => fs.statSync(p));
/** `fs.statSync(p, { throwIfNoEntry: false, bigint: true })`. */
export const bigStatIfExists = (p: string): fs.BigIntStats | undefined => ask(Q.StatBigInt, p, () => fs.statSync(p, { throwIfNoEntry: false, bigint: true }));
export const readlinkSync = (p: string): string => ask(Q.Readlink, p, () => fs.readlinkSync(p));
/** `fs.readFileSync(p, 'utf8')`. */
export const readTextSync = (p: string): string => (open.size === 0 ? fs.readFileSync(p, 'utf8') : observed(Q.ReadText, p));
export const readdirSync = (p: string): string[] => (open.size === 0 ? fs.readdirSync(p) : observed(Q.Readdir, p));
/** `fs.readdirSync(p, { withFileTypes: true })`. */
export const readdirEntriesSync = (p: string): fs.Dirent[] => (open.size === 0 ? fs.readdirSync(p, { withFileTypes: true }) : observed(Q.ReaddirTypes, p));

/**
 * Runs `decide`, noting every fact it learns through this module. `observations` is undefined when the result must
 * not be reused: it threw, a fact changed during it, or another recording was open
 * at the same time (overlapping decisions would mix their facts; neither is kept).
 */
export async function observeFacts<T>(decide: () => Promise<T>): Promise<{ result: T; observations: Observations | undefined }> {
  const recording = new Recording();
  if (open.size > 0) {
    recording.spoilt = true;
    for (const r of open) r.spoilt = true;
  }
  open.add(recording);
  let result: T;
  try {
    result = await decide();
  } finally {
    open.delete(recording);
  }
  // The facts only: the recording's bookkeeping (every question it saw) is not kept with them.
  const { questions, paths, facts } = recording;
  return { result, observations: recording.spoilt ? undefined : { questions, paths, facts } };
}

/**
 * Filesystem answers shared by several `stillHolds` calls that may all stand for one moment: each answer was asked
 * after every request those calls serve had arrived (`toolgate hook serve` checks a batch of received requests with
 * one), so a change made before any of them was sent is seen; `check --batch` keeps one for a synchronous stretch of
 * remembered answers (emptied before anything else can run: one state of the disk, as withFsMemo). The owner makes a
 * new one for each such moment; an AsyncQuestion is always asked afresh.
 */
export type FactMemo = Map<string, string>;

/**
 * True when asking every question of `o` again now gets the same answers (asked afresh, in order; with `memo`, a
 * filesystem question already asked in that moment is answered from it). A promise only when `o` holds an
 * AsyncQuestion, and only from the first one on.
 */
export function stillHolds(o: Observations, memo?: FactMemo): boolean | Promise<boolean> {
  const { questions, paths, facts } = o;
  for (let i = 0; i < questions.length; i++) {
    const q = questions[i]!;
    if (typeof q !== 'number') return stillHoldsFrom(o, i);
    const key = memo === undefined ? '' : `${q}\0${paths[i]!}`;
    let fact = memo?.get(key);
    if (fact === undefined) {
      fact = factNow(QUESTIONS[q]!, paths[i]!);
      memo?.set(key, fact);
    }
    if (fact !== facts[i]) return false;
  }
  return true;
}

function factNow(question: Question, p: string): string {
  try {
    return question.factNow ? question.factNow(p) : question.fact(question.ask(p));
  } catch (error) {
    return errorFact(error);
  }
}

async function stillHoldsFrom(o: Observations, from: number): Promise<boolean> {
  const { questions, paths, facts } = o;
  for (let i = from; i < questions.length; i++) {
    const q = questions[i]!;
    const question = typeof q === 'number' ? QUESTIONS[q]! : q;
    let fact: string;
    try {
      fact = question.fact(await question.ask(paths[i]!));
    } catch (error) {
      fact = errorFact(error);
    }
    if (fact !== facts[i]) return false;
  }
  return true;
}
