/**
 * The Agent SDK's sessions API over toolgate's transcripts (`<state>/toolgate/sessions/<id>/transcript.jsonl`, written
 * by the loop): list, read, describe, fork, rename, delete. A message's `uuid` is derived from the session id and its
 * place in the transcript, so it is the same every time it is read (and `forkSession`'s `upToMessageId` can name it).
 * Titles and tags live beside the transcript in `meta.json`; the transcript itself has one writer, the loop.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stateDirectory } from '../agent/session-dir.js';
import { readTranscript, transcriptMessageUuid, transcriptPath, TranscriptWriter } from '../agent/transcript.js';
import { typedText } from '../tool/message-origin.js';
import type { MessageParam } from '../tool/tool.js';

/** Where to look: a project folder (sessions whose working directory it is), and whose state directory (default: this process's environment). */
export interface SessionLookupOptions {
  dir?: string;
  /** toolgate's addition: the environment whose state directory holds the sessions (as `options.env` of `query()`). */
  env?: Record<string, string | undefined>;
}

export interface ListSessionsOptions extends SessionLookupOptions {
  limit?: number;
  offset?: number;
}

export interface GetSessionMessagesOptions extends SessionLookupOptions {
  limit?: number;
  offset?: number;
  includeSystemMessages?: boolean;
}

export interface ForkSessionOptions extends SessionLookupOptions {
  upToMessageId?: string;
  title?: string;
}

export interface SDKSessionInfo {
  sessionId: string;
  summary: string;
  lastModified: number;
  fileSize?: number;
  customTitle?: string;
  firstPrompt?: string;
  cwd?: string;
  tag?: string;
  createdAt?: number;
}

export interface SessionMessage {
  type: 'user' | 'assistant' | 'system';
  uuid: string;
  session_id: string;
  message: unknown;
  parent_tool_use_id: string | null;
  parent_agent_id: string | null;
}

interface Meta {
  customTitle?: string;
  tag?: string;
}

function sessionsRoot(options: SessionLookupOptions = {}): string {
  const env = options.env ?? process.env;
  return path.join(stateDirectory(env, env.HOME ?? os.homedir()), 'sessions');
}

/** A session folder, or undefined (an id that cannot name one, a missing transcript, another project's session). */
function locate(sessionId: string, options: SessionLookupOptions = {}): string | undefined {
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(sessionId) || sessionId === '.' || sessionId === '..') return undefined;
  const dir = path.join(sessionsRoot(options), sessionId);
  if (!existsSync(transcriptPath(dir))) return undefined;
  if (options.dir !== undefined && path.resolve(readTranscript(transcriptPath(dir)).header?.cwd ?? '') !== path.resolve(options.dir)) return undefined;
  return dir;
}

function readMeta(dir: string): Meta {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Meta;
  } catch {
    return {};
  }
}

function writeMeta(dir: string, meta: Meta): void {
  const file = path.join(dir, 'meta.json');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(meta)}\n`);
  renameSync(tmp, file);
}

/** `options.title` of a new session. */
export function writeSessionTitle(sessionDir: string, title: string): void {
  mkdirSync(sessionDir, { recursive: true });
  writeMeta(sessionDir, { ...readMeta(sessionDir), customTitle: title });
}

const messageUuid = transcriptMessageUuid;

/** What a person wrote in a user message: its text, without the reminders the session added to it. */
function textOf(message: MessageParam): string {
  return typedText(message);
}

function info(sessionId: string, dir: string): SDKSessionInfo {
  const file = transcriptPath(dir);
  const stat = statSync(file);
  const read = readTranscript(file);
  const meta = readMeta(dir);
  const first = read.messages.find((m) => m.role === 'user' && textOf(m).trim() !== '');
  const firstPrompt = first ? textOf(first).trim().slice(0, 200) : undefined;
  const created = read.header?.at !== undefined ? Date.parse(read.header.at) : undefined;
  return {
    sessionId,
    summary: meta.customTitle ?? firstPrompt ?? '',
    lastModified: Math.floor(stat.mtimeMs),
    fileSize: stat.size,
    ...(meta.customTitle !== undefined ? { customTitle: meta.customTitle } : {}),
    ...(firstPrompt !== undefined ? { firstPrompt } : {}),
    ...(read.header?.cwd !== undefined ? { cwd: read.header.cwd } : {}),
    ...(meta.tag !== undefined ? { tag: meta.tag } : {}),
    ...(created !== undefined && !Number.isNaN(created) ? { createdAt: created } : {}),
  };
}

/** Sessions, newest first (of one project when `dir` is given). */
export async function listSessions(options: ListSessionsOptions = {}): Promise<SDKSessionInfo[]> {
  const root = sessionsRoot(options);
  if (!existsSync(root)) return [];
  const out: SDKSessionInfo[] = [];
  for (const id of readdirSync(root)) {
    const dir = locate(id, options);
    if (dir) out.push(info(id, dir));
  }
  out.sort((a, b) => b.lastModified - a.lastModified);
  const offset = options.offset ?? 0;
  return out.slice(offset, options.limit !== undefined ? offset + options.limit : undefined);
}

export async function getSessionInfo(sessionId: string, options: SessionLookupOptions = {}): Promise<SDKSessionInfo | undefined> {
  const dir = locate(sessionId, options);
  return dir ? info(sessionId, dir) : undefined;
}

/** The conversation of a session, user and assistant messages in order; `[]` when there is no such session. */
export async function getSessionMessages(sessionId: string, options: GetSessionMessagesOptions = {}): Promise<SessionMessage[]> {
  const dir = locate(sessionId, options);
  if (!dir) return [];
  const { messages, stored } = readTranscript(transcriptPath(dir));
  const out = messages.slice(0, stored).map((message, i): SessionMessage => ({
    type: message.role,
    uuid: messageUuid(sessionId, i),
    session_id: sessionId,
    message,
    parent_tool_use_id: null,
    parent_agent_id: null,
  }));
  const offset = options.offset ?? 0;
  return out.slice(offset, options.limit !== undefined ? offset + options.limit : undefined);
}

/** A copy of a session (up to and including `upToMessageId`) under a new id, resumable with `resume`. */
export async function forkSession(sessionId: string, options: ForkSessionOptions = {}): Promise<{ sessionId: string }> {
  const dir = locate(sessionId, options);
  if (!dir) throw new Error(`no session ${sessionId}${options.dir !== undefined ? ` for ${options.dir}` : ''}`);
  const { messages, stored, header } = readTranscript(transcriptPath(dir));
  let keep = messages.slice(0, stored);
  if (options.upToMessageId !== undefined) {
    const at = keep.findIndex((_, i) => messageUuid(sessionId, i) === options.upToMessageId);
    if (at === -1) throw new Error(`session ${sessionId} has no message ${options.upToMessageId}`);
    keep = keep.slice(0, at + 1);
  }
  const newId = crypto.randomUUID();
  const newDir = path.join(path.dirname(dir), newId);
  const writer = new TranscriptWriter(transcriptPath(newDir));
  const now = new Date().toISOString();
  writer.append({ type: 'session', sessionId: newId, cwd: header?.cwd ?? '', model: header?.model ?? '', at: now });
  for (const message of keep) writer.append({ type: 'message', message, at: now });
  const title = options.title ?? `${readMeta(dir).customTitle ?? info(sessionId, dir).summary} (fork)`;
  writeMeta(newDir, { customTitle: title });
  return { sessionId: newId };
}

export async function renameSession(sessionId: string, title: string, options: SessionLookupOptions = {}): Promise<void> {
  const dir = locate(sessionId, options);
  if (!dir) throw new Error(`no session ${sessionId}`);
  writeMeta(dir, { ...readMeta(dir), customTitle: title });
}

export async function tagSession(sessionId: string, tag: string | null, options: SessionLookupOptions = {}): Promise<void> {
  const dir = locate(sessionId, options);
  if (!dir) throw new Error(`no session ${sessionId}`);
  const { tag: _old, ...rest } = readMeta(dir);
  writeMeta(dir, tag === null ? rest : { ...rest, tag });
}

/** Removes the session's folder (transcript, sub-agents' transcripts, saved tool results). */
export async function deleteSession(sessionId: string, options: SessionLookupOptions = {}): Promise<void> {
  const dir = locate(sessionId, options);
  if (!dir) throw new Error(`no session ${sessionId}`);
  rmSync(dir, { recursive: true, force: true });
}
