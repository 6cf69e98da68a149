/**
 * Compaction, as Claude Code does it: the conversation so far is summarised by the model itself (one more request of
 * the same session — same system prompt and tools, so the prompt cache holds; tools may not be called), and the
 * session goes on from a single user message carrying that summary. PreCompact hooks run first and may refuse it
 * (exit 2 or `decision: "block"`). The transcript gets a `compact` boundary, so `--continue` and `/resume` go on
 * from the summary, not from the whole history. Used by the terminal session's `/compact`; the SDK face can call it
 * the same way.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { COMPACTION_SUMMARY_OPENING, compactionSummaryText } from '../tool/message-origin.js';
import type { MessageParam } from '../tool/tool.js';
import { resolveModel } from '../tool/models.js';
import { modelStep } from './model-step.js';
import { costOf } from './pricing.js';
import { mergeIntoLastUser } from './prompt-messages.js';
import { nextRequest } from './request.js';
import { buildSystemPrompt } from './system-prompt.js';
import { isoTimestamp, transcriptPath, TranscriptWriter } from './transcript.js';
import type { ToolRuntime, Usage } from './types.js';
import { contextOf } from './runtime-context.js';

export interface CompactOptions {
  readonly runtime: ToolRuntime;
  readonly client: Anthropic;
  /** The conversation to summarise (what the next request would send). */
  readonly messages: readonly MessageParam[];
  readonly model?: string;
  /** `/compact <instructions>`: what the summary should keep in particular. */
  readonly instructions?: string;
  /** `manual` (a person asked) or `auto` (the context is full): the PreCompact matcher. */
  readonly trigger?: 'manual' | 'auto';
  /** The session's own system prompt, when it replaced toolgate's (`--system-prompt`). */
  readonly systemPrompt?: string;
  readonly signal?: AbortSignal;
  /** Write the boundary to the runtime's transcript (default true). */
  readonly recordInTranscript?: boolean;
}

export interface CompactResult {
  readonly summary: string;
  /** The conversation from now on: one user message with the summary. */
  readonly messages: MessageParam[];
  readonly usage: Usage;
  readonly costUsd: number;
  /** What PreCompact hooks said for a person (`systemMessage`, exit-2 stderr that did not block). */
  readonly notices: readonly string[];
}

/** A PreCompact hook refused, or there is nothing to compact: the conversation stays as it is. */
export class CompactError extends Error {
  override readonly name = 'CompactError';
}

const SUMMARY_REQUEST = `Stop here and write a summary of this conversation so far, to replace it: the conversation will go on from your summary alone, so it must carry everything needed to continue the work. Do not call any tool.

Cover, in this order:
1. What the user asked for, in their words where it matters, and every later change of plan.
2. What was done: files read, created or changed (with paths), commands run and what they showed, decisions taken and why.
3. Errors met and how they were resolved, or that they were not.
4. The current state: what works, what is unfinished, the next step that was about to be taken.
5. Anything the user said to keep in mind (preferences, constraints, things not to do).

Write plain prose and short lists; quote code or commands only where the exact text matters.`;

/** The opening of the summary message the conversation continues from (its mark: tool/message-origin.ts). */
export const SUMMARY_PREFIX = COMPACTION_SUMMARY_OPENING;

export async function compactConversation(options: CompactOptions): Promise<CompactResult> {
  const { runtime, signal } = options;
  if (!options.messages.some((m) => m.role === 'assistant')) throw new CompactError('Nothing to compact yet.');
  const model = resolveModel(options.model ?? contextOf(runtime).options.mainLoopModel);
  const trigger = options.trigger ?? 'manual';
  const hooks = contextOf(runtime).services.hooks?.loop;
  const notices: string[] = [];
  if (hooks) {
    const outcome = await hooks.preCompact(
      {
        sessionId: runtime.sessionId,
        transcriptPath: transcriptPath(runtime.sessionDir),
        cwd: runtime.cwd,
        permissionMode: runtime.permissionContext.mode,
        projectDir: runtime.cwd,
        trigger,
        customInstructions: options.instructions ?? '',
      },
      signal ?? new AbortController().signal,
    );
    notices.push(...outcome.systemMessages, ...outcome.errors);
    if (outcome.block) throw new CompactError(`Compaction refused by ${outcome.block.source}: ${outcome.block.reason}`);
    if (outcome.preventContinuation) throw new CompactError(outcome.preventContinuation.stopReason ?? 'A PreCompact hook stopped the compaction.');
  }

  const ask = `${SUMMARY_REQUEST}${options.instructions?.trim() ? `\n\nThe user adds: ${options.instructions.trim()}` : ''}`;
  const messages = [...options.messages];
  messages.push(mergeIntoLastUser(messages, { role: 'user', content: [{ type: 'text', text: ask }] }));
  const system = options.systemPrompt ?? buildSystemPrompt({ cwd: runtime.cwd, model });
  const request = await nextRequest({ runtime, model, system, messages });
  const step = await modelStep({ client: options.client, request: { ...request, ...(request.tools ? { tool_choice: { type: 'none' } } : {}) }, signal });
  if (step.aborted) throw new CompactError('Compaction was interrupted; the conversation is unchanged.');
  if (step.error) throw new CompactError(`Compaction failed: ${step.error}`);
  const content = step.assistant.content;
  const summary = (typeof content === 'string' ? [content] : content.flatMap((b) => (b.type === 'text' ? [b.text] : []))).join('\n').trim();
  if (summary === '') throw new CompactError('The model gave no summary; the conversation is unchanged.');

  // Marked as the machine's (tool/message-origin.ts): auto mode's classifier shows it as context, not as the user's words.
  const next: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: compactionSummaryText(summary) }] }];
  if (options.recordInTranscript !== false) {
    new TranscriptWriter(transcriptPath(runtime.sessionDir)).append({ type: 'compact', trigger, messages: next, at: isoTimestamp() });
  }
  return { summary, messages: next, usage: step.usage, costUsd: costOf(model, step.usage), notices };
}
