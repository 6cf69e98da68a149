/**
 * `resumeAt` (the Agent SDK's `resumeSessionAt`, `toolgate -p --resume-session-at`): a resumed conversation cut after
 * one of its messages. The cut goes into a new session's transcript (header, then the messages kept), which the
 * session then resumes as its own; the transcript it was cut from stays whole, so the conversation past the cut can
 * still be resumed. A message is named by its transcript id (`transcriptMessageUuid`: what `getSessionMessages` gives).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isoTimestamp, readTranscript, transcriptMessageUuid, transcriptPath, TranscriptWriter } from '../agent/transcript.js';
import { randomUUID } from '../tool/crypto.js';
import { SessionOptionError } from './options.js';

/** The new session's id, its transcript written: the conversation of `resume` up to and including `messageId`. */
export function cutTranscript(sessionsDir: string, resume: string, messageId: string, newId: string = randomUUID()): string {
  const file = resume.endsWith('.jsonl') ? path.resolve(resume) : transcriptPath(path.join(sessionsDir, resume));
  if (!existsSync(file)) throw new SessionOptionError(`no transcript to resume at ${file}`);
  const { messages, stored, header, uuids } = readTranscript(file);
  const sourceId = header?.sessionId ?? path.basename(path.dirname(file));
  const kept = messages.slice(0, stored);
  // Its transcript id, or the id one of its parts was yielded with (the cut keeps the whole message that part is in).
  const at = kept.findIndex((_, i) => transcriptMessageUuid(sourceId, i) === messageId || uuids[i]?.includes(messageId) === true);
  if (at === -1) throw new SessionOptionError(`session ${sourceId} has no message ${messageId} to resume at`);
  const writer = new TranscriptWriter(transcriptPath(path.join(sessionsDir, newId)));
  const now = isoTimestamp();
  writer.append({ type: 'session', sessionId: newId, cwd: header?.cwd ?? '', model: header?.model ?? '', at: now });
  kept.slice(0, at + 1).forEach((message, i) => writer.append({ type: 'message', message, at: now, ...(uuids[i] ? { uuids: uuids[i] } : {}) }));
  return newId;
}
