/**
 * What the auto-mode classifier is shown of a conversation: what the user asked and the tool calls made so far —
 * never what came back. A file, a web page, a command's output or a sub-agent's report cannot talk the classifier into
 * anything, because none of them reaches it:
 *
 * - of a user message, only the text the person typed (or the program's prompt) as the user's words: every block the
 *   machine made is marked at its making (tool/message-origin.ts) and left out — hook context of every event, a
 *   background task's notification (its output's last lines), a Stop hook's feedback (often a check's output), a
 *   queued message's note, another agent's words, the deferred-tools announcement — as a tool's result is, except a
 *   compaction's summary: it stands for the whole conversation it replaced, so it is shown, as `quoted` context (it is
 *   the model's own words about what it read, never what the user said);
 * - no user message that answers tool calls: the run of user messages after an assistant message with tool_use blocks
 *   carries tool_result blocks and the tools' attachments (their `newMessages`, which can be any text a tool read), so
 *   all of it is left out — a prompt typed into such a message (after an interrupted turn) is lost to the classifier,
 *   which can only make it more careful;
 * - an assistant message's tool_use blocks, each as its tool's `toAutoClassifierInput(input)` (empty: the tool's name
 *   only, its input is not shown); never the assistant's text or thinking — the model's own words can echo what a
 *   file said ("the README says the user approved this");
 * - in a sub-agent, its "user" messages are the task another agent wrote: they are marked as such (`delegating-agent`),
 *   so the classifier does not read them as the person's intent;
 * - a person's `/command`: only its command line (tool/command-tag.ts) is the user's words; what the command pulled in
 *   — its file's text (a repository's, maybe), the output of its `!` commands, the contents of its `@` files — is
 *   `quoted` context: shown, so the classifier knows what the command is about, but never read as what the user said.
 *
 * Long histories are cut (the first user message and the latest ones, the latest tool calls; long texts shortened with
 * a marker): the cut only ever removes context, which makes the classifier more careful, not less.
 */
import { readCommandTag } from '../tool/command-tag.js';
import { findToolByName } from '../tool/find-tool.js';
import { machineTextKind } from '../tool/message-origin.js';
import type { AnyTool, MessageParam, Tools } from '../tool/tool.js';

export type ClassifierTranscriptEntry =
  /** `user`: the person's words; `delegating-agent`: a sub-agent's task, written by the agent that started it. */
  | { readonly role: 'user' | 'delegating-agent'; readonly text: string }
  /**
   * Context, not the user's words: what a `/command` the user ran pulled in (`from`: `/name`), or the summary a
   * compaction left (`from`: `compaction summary`).
   */
  | { readonly role: 'quoted'; readonly from: string; readonly text: string }
  /** A tool call the model made, as its tool describes it to a classifier. */
  | { readonly role: 'action'; readonly tool: string; readonly input: string };

const MAX_USER_ENTRIES = 20;
const MAX_USER_CHARS = 4_000;
const MAX_ACTIONS = 60;
const MAX_ACTION_CHARS = 1_000;

export interface TranscriptOptions {
  readonly tools: Tools;
  /** The call being judged: left out of the history (it is shown as the action). */
  readonly currentToolUseId?: string;
  /** The conversation is a sub-agent's: its user messages are another agent's words. */
  readonly subagent?: boolean;
}

export function classifierTranscript(messages: readonly MessageParam[], options: TranscriptOptions): ClassifierTranscriptEntry[] {
  const users: { index: number; entry: ClassifierTranscriptEntry }[] = [];
  const actions: { index: number; entry: ClassifierTranscriptEntry }[] = [];
  const role = options.subagent === true ? 'delegating-agent' : 'user';
  let answersToolCalls = false;
  messages.forEach((message, index) => {
    if (message === null || typeof message !== 'object') return;
    if (message.role === 'assistant') {
      const blocks = Array.isArray(message.content) ? message.content : [];
      answersToolCalls = blocks.some((b) => b?.type === 'tool_use');
      for (const block of blocks) {
        if (block?.type !== 'tool_use' || block.id === options.currentToolUseId) continue;
        actions.push({ index, entry: { role: 'action', tool: String(block.name), input: cut(describeCall(options.tools, block.name, block.input), MAX_ACTION_CHARS) } });
      }
      return;
    }
    if (message.role !== 'user' || answersToolCalls) return;
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : Array.isArray(message.content) ? message.content : [];
    if (blocks.some((b) => b?.type === 'tool_result')) return;
    const all = blocks.flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
    for (const summary of all.filter((t) => machineTextKind(t) === 'compaction-summary')) {
      users.push({ index, entry: { role: 'quoted', from: 'compaction summary', text: cut(summary.trim(), MAX_USER_CHARS) } });
    }
    const texts = all.filter((t) => machineTextKind(t) === undefined);
    // Everything after a command line in the same message was pulled in by the command.
    const at = texts.findIndex((t) => readCommandTag(t) !== undefined);
    const command = at === -1 ? undefined : readCommandTag(texts[at]!)!;
    const own = (command ? [...texts.slice(0, at), command.line] : texts).join('\n').trim();
    if (own !== '') users.push({ index, entry: { role, text: cut(own, MAX_USER_CHARS) } });
    const pulledIn = command ? [command.rest, ...texts.slice(at + 1)].join('\n').trim() : '';
    if (pulledIn !== '') users.push({ index, entry: { role: 'quoted', from: `/${command!.name}`, text: cut(pulledIn, MAX_USER_CHARS) } });
  });
  const keptUsers = users.length <= MAX_USER_ENTRIES ? users : [users[0]!, ...users.slice(-(MAX_USER_ENTRIES - 1))];
  const keptActions = actions.slice(-MAX_ACTIONS);
  return [...keptUsers, ...keptActions].sort((a, b) => a.index - b.index).map((x) => x.entry);
}

/** A tool call as its tool describes it to a classifier: `toAutoClassifierInput(input)`, '' when it gives nothing. */
export function classifierInputOf(tool: AnyTool, input: Record<string, unknown>): string {
  try {
    const text = tool.toAutoClassifierInput(input);
    return typeof text === 'string' ? text : '';
  } catch {
    return ''; // a tool that cannot describe the call gives the classifier nothing: a person decides
  }
}

function describeCall(tools: Tools, name: unknown, input: unknown): string {
  const tool = typeof name === 'string' ? findToolByName(tools, name) : undefined;
  if (!tool || input === null || typeof input !== 'object' || Array.isArray(input)) return '';
  return classifierInputOf(tool, input as Record<string, unknown>);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} …[${text.length - max} more characters not shown]`;
}
