/**
 * The session's conversation verbs, done on the local run (session.ts keeps their names): another session of the
 * folder goes on (`/resume`), a fresh one starts (`/clear`), the conversation is summarised and goes on from the
 * summary (`/compact`); and a face's message prepared for the loop (its slash command expanded).
 */
import path from 'node:path';
import { compactConversation } from '../agent/compact.js';
import { readTranscript, transcriptMessageUuid, transcriptPath } from '../agent/transcript.js';
import { randomUUID } from '../tool/crypto.js';
import { typedText } from '../tool/message-origin.js';
import type { MessageParam } from '../tool/tool.js';
import type { LocalRun } from './local-run.js';
import type { SessionOptions } from './options.js';
import { cutTranscript } from './resume-at.js';
import type { SessionParts } from './setup.js';

/** The conversation a resumed session goes on from (`--continue`, `--resume`); none for a new one. */
export function historyOf({ resume, runtime }: SessionParts): MessageParam[] {
  if (resume === undefined) return [];
  return readTranscript(resume.endsWith('.jsonl') ? path.resolve(resume) : transcriptPath(path.join(path.dirname(runtime.sessionDir), resume))).messages;
}

/** A fresh conversation under a new id: SessionEnd (`clear`), then SessionStart (`clear`) with the next message. */
export async function clearConversation({ runtime }: SessionParts, local: LocalRun): Promise<string> {
  const sessionId = randomUUID();
  await local.startOver('clear', () => (runtime.switchSession(sessionId), { source: 'clear' }));
  return sessionId;
}

/** Goes on with another of this folder's sessions; returns its conversation. */
export async function resumeConversation({ runtime }: SessionParts, local: LocalRun, sessionId: string): Promise<MessageParam[]> {
  const messages = readTranscript(transcriptPath(path.join(path.dirname(runtime.sessionDir), sessionId))).messages;
  await local.startOver('other', () => (runtime.switchSession(sessionId), { source: 'resume', resume: sessionId }));
  local.messages = messages;
  return messages;
}

/**
 * Summarises the conversation and goes on from the summary: PreCompact hooks first, the transcript gets the boundary,
 * and the next message starts the conversation again from it (SessionStart `compact`, no SessionEnd).
 */
export async function compactLocal(
  parts: SessionParts,
  local: LocalRun,
  c: { readonly options: SessionOptions; readonly model: string; readonly signal: AbortSignal; readonly instructions?: string },
): Promise<{ summary: string; notices: readonly string[]; costUsd: number }> {
  const persisted = c.options.persist !== false;
  const result = await compactConversation({
    runtime: parts.runtime,
    client: parts.client,
    messages: local.messages,
    model: c.model,
    trigger: 'manual',
    ...(c.instructions ? { instructions: c.instructions } : {}),
    ...(parts.systemPrompt !== undefined ? { systemPrompt: parts.systemPrompt } : {}),
    recordInTranscript: persisted,
    signal: c.signal,
  });
  await local.startOver(false, () => ({ source: 'compact', ...(persisted ? { resume: parts.runtime.sessionId } : { carried: [...result.messages] }) }));
  local.messages = [...result.messages];
  return { summary: result.summary, notices: result.notices, costUsd: result.costUsd };
}

/**
 * The conversation cut back to before its user message at `index` (`/rewind`, Esc Esc): the messages before it go on
 * under a new session id (their transcript cut from this one, which stays whole: resume-at.ts), and that message's
 * text is returned, for the prompt. Between turns only.
 */
export async function rewindConversation({ runtime }: SessionParts, local: LocalRun, index: number): Promise<{ readonly sessionId: string; readonly text: string; readonly messages: MessageParam[] }> {
  const message = local.messages[index];
  if (!Number.isInteger(index) || message?.role !== 'user') throw new Error(`message ${index} is not a user message of this conversation`);
  const kept = local.messages.slice(0, index);
  const sessionsDir = path.dirname(runtime.sessionDir);
  const sessionId = index === 0 ? randomUUID() : cutTranscript(sessionsDir, runtime.sessionId, transcriptMessageUuid(runtime.sessionId, index - 1));
  await local.startOver('other', () => (runtime.switchSession(sessionId), index === 0 ? { source: 'clear' } : { source: 'resume', resume: sessionId }));
  local.messages = kept;
  return { sessionId, text: userText(message), messages: kept };
}

/** A user message's typed text (its text blocks, without the session's reminders). */
export function userText(message: MessageParam): string {
  return typedText(message);
}

/**
 * A face's user message as the loop gets it: `/name args` expanded as its skill or command when `expand` is given;
 * `model` (or the command's own) the model of its turn.
 */
export async function prepareMessage(
  content: MessageParam['content'],
  model: string | undefined,
  local: LocalRun,
  expand: ((text: string) => Promise<{ readonly message: MessageParam; readonly model?: string } | undefined>) | undefined,
): Promise<MessageParam> {
  const message: MessageParam = { role: 'user', content };
  if (model) local.turnModel(message, model);
  if (!expand || typeof content !== 'string' || !content.trimStart().startsWith('/')) return message;
  const expansion = await expand(content);
  if (!expansion) return message;
  if (expansion.model) local.turnModel(expansion.message, expansion.model);
  return expansion.message;
}
