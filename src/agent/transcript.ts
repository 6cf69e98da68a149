/**
 * A session's transcript: JSON Lines in the session folder (`transcript.jsonl`), one entry per message as it is
 * committed, after a header naming the session, its working directory and model; a `compact` entry replaces what
 * came before it with its summary. `--continue` picks the newest
 * transcript for a working directory, `--resume ID` a given one.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { errorToolResult } from '../tool/tool-result.js';
import type { MessageParam } from '../tool/tool.js';

export const TRANSCRIPT_FILE = 'transcript.jsonl';

export type TranscriptEntry =
  | { readonly type: 'session'; readonly sessionId: string; readonly cwd: string; readonly model: string; readonly at: string }
  /** `uuids`: the ids the loop gave the message's parts as they were yielded (its blocks, its tool results). */
  | { readonly type: 'message'; readonly message: MessageParam; readonly at: string; readonly uuids?: readonly string[] }
  | { readonly type: 'result'; readonly stopReason: string; readonly turns: number; readonly costUsd: number; readonly at: string }
  /** The conversation was compacted (compact.ts): from here on it is `messages` (the summary), then what follows. */
  | { readonly type: 'compact'; readonly trigger: 'manual' | 'auto'; readonly messages: readonly MessageParam[]; readonly at: string };

/** The first instant `Date#toISOString` writes with a six-digit year: past it (and before 1970), the plain way. */
const YEAR_10000 = 253_402_300_800_000;
let stampMinute = Number.NaN;
let stampPrefix = '';

/**
 * `new Date(now).toISOString()`, from a `YYYY-MM-DDTHH:MM:` kept per minute: every entry of a transcript is stamped,
 * and a Date formatted cost more in a session than encoding the rest of the entry.
 */
export function isoTimestamp(now: number = Date.now()): string {
  if (!Number.isInteger(now) || now < 0 || now >= YEAR_10000) return new Date(now).toISOString();
  const minute = Math.floor(now / 60_000);
  if (minute !== stampMinute) {
    stampPrefix = new Date(minute * 60_000).toISOString().slice(0, 17);
    stampMinute = minute;
  }
  const inMinute = now - minute * 60_000;
  const s = Math.floor(inMinute / 1000);
  const ms = inMinute % 1000;
  return `${stampPrefix}${s < 10 ? '0' : ''}${s}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

export function transcriptPath(sessionDir: string): string {
  return path.join(sessionDir, TRANSCRIPT_FILE);
}

/**
 * The id of the `index`th message of a session's transcript (from its session id and its place, so the same every
 * time it is read): the Agent SDK face's `uuid` of a stored message, `forkSession`'s `upToMessageId`, `resumeSessionAt`.
 */
export function transcriptMessageUuid(sessionId: string, index: number): string {
  const h = createHash('sha256').update(`${sessionId}\u0000${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A sub-agent's own transcript, in its session's folder. */
export function subagentTranscriptPath(sessionDir: string, agentId: string): string {
  return path.join(sessionDir, 'subagents', `${agentId.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`);
}

/**
 * How many transcripts one process keeps open at once. Past it a session's appends open the file each (as before
 * hold() existed): 10,000 sessions in one process would otherwise hold 10,000 descriptors besides their sockets, and
 * the process's limit (often 1,024 or 20,000) ends the sessions that come after, not the transcripts.
 */
export const MAX_HELD_TRANSCRIPTS = 512;
let held = 0;

/** Transcripts held open in this process now (tests). */
export function heldTranscripts(): number {
  return held;
}

/** A writer whose session was dropped without close() (an abandoned query() generator) does not keep its file open. */
const openFiles = new FinalizationRegistry<number>((fd) => {
  held--;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Appending to a file that is there (no O_CREAT): a missing file is an ENOENT, not a new empty one. */
const APPEND_EXISTING = constants.O_WRONLY | constants.O_APPEND;

export class TranscriptWriter {
  #fd: number | undefined;

  /** Nothing is touched yet: the folder is made by the first write that finds it missing (one a session, not a look each). */
  constructor(readonly file: string) {}

  /**
   * Keeps the file open for appending until close(): a session commits an entry per message, and one write each is
   * what they should cost (the file is created now if it is not there). Without it every append opens the file.
   * Returns whether the file is new — created now, or not there for the first append to make — so that a session
   * writes its header first: one open a session, not a look before it. False when it was held already.
   */
  hold(): boolean {
    if (this.#fd !== undefined) return false;
    let created = false;
    try {
      this.#fd = openSync(this.file, APPEND_EXISTING);
    } catch (error) {
      // Not ENOENT (a permission, a folder that is a file): as before, a look says whether a header is due, and
      // append() opens the file itself and reports what is wrong.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return !existsSync(this.file);
      try {
        this.#fd = withFolder(this.file, () => openSync(this.file, 'ax'));
        created = true;
      } catch (again) {
        // Another writer made it in between: it is not new; anything else is append()'s to report.
        if ((again as NodeJS.ErrnoException).code !== 'EEXIST') return true;
        try {
          this.#fd = openSync(this.file, 'a');
        } catch {
          return false;
        }
      }
    }
    if (held >= MAX_HELD_TRANSCRIPTS) {
      // Whether it is new is known now; the file is not kept.
      closeSync(this.#fd);
      this.#fd = undefined;
      return created;
    }
    held++;
    openFiles.register(this, this.#fd, this);
    return created;
  }

  close(): void {
    if (this.#fd === undefined) return;
    held--;
    openFiles.unregister(this);
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
  }

  append(entry: TranscriptEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    // Synchronous on purpose: a crash right after a message was committed must not lose it.
    if (this.#fd === undefined) {
      withFolder(this.file, () => appendFileSync(this.file, line));
      return;
    }
    // The string as it is (no Buffer made for it); a short write, which a regular file hardly ever does, is finished
    // from the bytes.
    const written = writeSync(this.#fd, line);
    const length = Buffer.byteLength(line);
    if (written === length) return;
    const bytes = Buffer.from(line);
    for (let at = written; at < length; ) at += writeSync(this.#fd, bytes, at);
  }
}

/** `write()`, and once more after making the file's folder when it is not there (a new session, or one removed). */
function withFolder<T>(file: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    return write();
  }
}

/** The conversation in a transcript, repaired so the next request is valid (a crash may have cut a turn). */
export function readTranscript(file: string): {
  messages: MessageParam[];
  /** How many of `messages` are in the file (the rest is the repair). */
  stored: number;
  header?: Extract<TranscriptEntry, { type: 'session' }>;
  /** Each stored message's `uuids` (the ids its parts were yielded with), by index. */
  uuids: (readonly string[] | undefined)[];
} {
  const messages: MessageParam[] = [];
  const uuids: (readonly string[] | undefined)[] = [];
  let header: Extract<TranscriptEntry, { type: 'session' }> | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let entry: TranscriptEntry;
    try {
      entry = JSON.parse(line) as TranscriptEntry;
    } catch {
      continue; // a line cut by a crash mid-write
    }
    if (entry.type === 'session') header ??= entry;
    if (entry.type === 'message') {
      messages.push(entry.message);
      uuids[messages.length - 1] = Array.isArray(entry.uuids) ? entry.uuids : undefined;
    }
    if (entry.type === 'compact') {
      messages.splice(0, messages.length, ...entry.messages);
      uuids.length = 0;
    }
  }
  return { messages: repairTail(messages), stored: messages.length, header, uuids };
}

/** An assistant message whose tool_use blocks have no results (the session ended during the tools) gets them. */
export function repairTail(messages: MessageParam[]): MessageParam[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || typeof last.content === 'string') return messages;
  const ids = last.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
  if (ids.length === 0) return messages;
  return [
    ...messages,
    { role: 'user', content: ids.map((id) => errorToolResult(id, 'The session ended before this call produced a result; it may or may not have run.')) },
  ];
}

/** The newest session under `sessionsRoot` whose transcript was written for `cwd`. */
export function latestSessionFor(sessionsRoot: string, cwd: string): string | undefined {
  if (!existsSync(sessionsRoot)) return undefined;
  let best: { id: string; mtime: number } | undefined;
  for (const id of readdirSync(sessionsRoot)) {
    const file = transcriptPath(path.join(sessionsRoot, id));
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      continue;
    }
    if (best && mtime <= best.mtime) continue;
    const firstLine = readFirstLine(file);
    try {
      const header = JSON.parse(firstLine) as TranscriptEntry;
      if (header.type === 'session' && path.resolve(header.cwd) === path.resolve(cwd)) best = { id, mtime };
    } catch {
      // not a transcript of ours
    }
  }
  return best?.id;
}

function readFirstLine(file: string): string {
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/** A session of a folder, for a picker (`/resume`): its id, when it was last written, how it began. */
export interface SessionSummary {
  readonly id: string;
  readonly file: string;
  readonly modifiedMs: number;
  /** The first thing the person typed (a system reminder or an attachment is not it). */
  readonly firstPrompt: string;
  readonly messages: number;
}

/** The sessions under `sessionsRoot` whose transcript was written for `cwd`, newest first (at most `limit`). */
export function listSessionsFor(sessionsRoot: string, cwd: string, limit = 20): SessionSummary[] {
  if (!existsSync(sessionsRoot)) return [];
  const found: { id: string; file: string; mtime: number }[] = [];
  for (const id of readdirSync(sessionsRoot)) {
    const file = transcriptPath(path.join(sessionsRoot, id));
    try {
      const header = JSON.parse(readFirstLine(file)) as TranscriptEntry;
      if (header.type === 'session' && path.resolve(header.cwd) === path.resolve(cwd)) found.push({ id, file, mtime: statSync(file).mtimeMs });
    } catch {
      // no transcript here, or not one of ours
    }
  }
  found.sort((a, b) => b.mtime - a.mtime);
  return found.slice(0, limit).flatMap(({ id, file, mtime }) => {
    try {
      const { messages } = readTranscript(file);
      return [{ id, file, modifiedMs: mtime, firstPrompt: firstPromptOf(messages), messages: messages.length }];
    } catch {
      return [];
    }
  });
}

function firstPromptOf(messages: readonly MessageParam[]): string {
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const texts = typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    const text = texts.find((t) => !t.trimStart().startsWith('<system-reminder>'));
    if (text !== undefined) return text.trim().split('\n')[0]!.slice(0, 120);
  }
  return '';
}
