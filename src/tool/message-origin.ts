/**
 * Who wrote a text block of a user message. Beside what the person typed (or the program's prompt), a conversation's
 * user messages carry text the machine made and put there: hook context, a background task's notification, a Stop
 * hook's feedback, the summary a compaction left, the deferred-tools announcement, a message from another agent. Much
 * of it quotes what a repository wrote (a file, a command's output). Each kind is made here and nowhere else — its
 * opening is the mark — and `machineTextKind` reads the mark back, so auto mode's classifier
 * (permissions/classifier-transcript.ts) takes only the person's words as the user's. The openings are Claude Code's
 * (`<system-reminder>`, `<task-notification>`, `Stop hook feedback:`) where it has one: what the model reads is
 * unchanged.
 *
 * A mark is the start of a block the house makes, so nothing a repository writes can take one off; a person who types
 * an opening only loses their own words to the classifier, which then reads less, never more. A producer of a new kind
 * of machine text adds its maker here (test/user-message-producers.test.ts fails until every producer is accounted for).
 */

export type MachineTextKind =
  /** Hook context, a queued message, the deferred-tools announcement, another agent's words: the model's side notes. */
  | 'system-reminder'
  /** A background command or agent ended: its status, the last lines of its output, an agent's report. */
  | 'task-notification'
  /** A Stop hook refused the stop and says why (often a check's output). */
  | 'stop-hook-feedback'
  /** The model's own summary of the conversation a compaction replaced. */
  | 'compaction-summary'
  /** A watched command's new output lines, or the end of its watch (Monitor). */
  | 'monitor-event'
  /** A scheduled task's prompt as it fires: the model's (CronCreate) or a project file's words, never the user's now. */
  | 'scheduled-task'
  /** A message one agent of a team sent another (SendMessage): a model's words, never the user's, never a grant. */
  | 'teammate-message';

const SYSTEM_REMINDER = '<system-reminder>';
const TASK_NOTIFICATION = '<task-notification>';
const STOP_HOOK_FEEDBACK = 'Stop hook feedback:\n';
/** The opening of the message a compacted conversation goes on from. */
export const COMPACTION_SUMMARY_OPENING = 'This session continues from an earlier conversation that was compacted. Its summary:';
const MONITOR_EVENT = '<monitor-event ';
const MONITOR_ENDED = '<monitor-ended ';
const SCHEDULED_TASK = '<scheduled-task ';
const TEAMMATE_MESSAGE = '<teammate-message ';

const OPENINGS: readonly (readonly [string, MachineTextKind])[] = [
  [SYSTEM_REMINDER, 'system-reminder'],
  [TASK_NOTIFICATION, 'task-notification'],
  [STOP_HOOK_FEEDBACK, 'stop-hook-feedback'],
  [COMPACTION_SUMMARY_OPENING, 'compaction-summary'],
  [MONITOR_EVENT, 'monitor-event'],
  [MONITOR_ENDED, 'monitor-event'],
  [SCHEDULED_TASK, 'scheduled-task'],
  [TEAMMATE_MESSAGE, 'teammate-message'],
];

/** `<tag a="v"…>` with the attributes' values made safe for one line inside quotes. */
function openTag(opening: string, attributes: Readonly<Record<string, string>>): string {
  const attrs = Object.entries(attributes).map(([k, v]) => `${k}="${v.replace(/[<>"&\n]/g, ' ')}"`);
  return `${opening}${attrs.join(' ')}>`;
}

/** A Monitor event: the watched command's lines (its output, so a repository's words) inside `<monitor-event>`. */
export function monitorEventText(attributes: Readonly<Record<string, string>>, body: string): string {
  return `${openTag(MONITOR_EVENT, attributes)}\n${body}\n</monitor-event>`;
}

/** The end of a Monitor's watch. */
export function monitorEndedText(attributes: Readonly<Record<string, string>>, body: string): string {
  return `${openTag(MONITOR_ENDED, attributes)}\n${body}\n</monitor-ended>`;
}

/** A scheduled task's prompt as it fires, inside `<scheduled-task>`, then `after` (what the model is told of it). */
export function scheduledTaskText(attributes: Readonly<Record<string, string>>, prompt: string, after: string): string {
  return `${openTag(SCHEDULED_TASK, attributes)}\n${prompt}\n</scheduled-task>\n${after}`;
}

/**
 * A teammate's message as it reaches the recipient, inside `<teammate-message from=…>`, then `after` (what the model
 * is told of it). The sender is named by the house (from the sending agent's identity), never by the text.
 */
export function teammateMessageText(attributes: Readonly<Record<string, string>>, body: string, after: string): string {
  return `${openTag(TEAMMATE_MESSAGE, attributes)}\n${body}\n</teammate-message>\n${after}`;
}

/** A teammate's message read back (for a person's view): who sent it, its preview and its body; undefined for other text. */
export function readTeammateMessage(text: string): { readonly from: string; readonly summary?: string; readonly body: string } | undefined {
  const m = /^\s*<teammate-message ([^>\n]*)>\n([\s\S]*?)\n<\/teammate-message>/.exec(text);
  if (!m) return undefined;
  const attrs = new Map([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!] as const));
  const from = attrs.get('from');
  if (from === undefined) return undefined;
  const summary = attrs.get('summary');
  return { from, ...(summary !== undefined ? { summary } : {}), body: m[2]! };
}

/**
 * What a person typed in a user message: its text blocks without the reminders a session adds to it (tool results,
 * images and documents are not typed text). The one reading of "the user's words" for pickers, redraws and listings.
 */
export function typedText(message: { readonly content: string | readonly { readonly type: string; readonly text?: string }[] }): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' && !b.text.trimStart().startsWith(SYSTEM_REMINDER) ? [b.text] : []))
    .join('\n');
}

export function systemReminderText(text: string): string {
  return `${SYSTEM_REMINDER}\n${text}\n</system-reminder>`;
}

/** `<task-notification>` with `body` (its tagged lines) inside, then `after` (a line for the model) below it. */
export function taskNotificationText(body: readonly string[], after: readonly string[] = []): string {
  return [TASK_NOTIFICATION, ...body, '</task-notification>', ...after].join('\n');
}

export function stopHookFeedbackText(reason: string): string {
  return `${STOP_HOOK_FEEDBACK}${reason}`;
}

export function compactionSummaryText(summary: string): string {
  return `${COMPACTION_SUMMARY_OPENING}\n\n${summary}`;
}

/** The kind of machine text `text` is, by its opening; undefined for anything else (the person's words, as far as this can tell). */
export function machineTextKind(text: string): MachineTextKind | undefined {
  const start = text.trimStart();
  for (const [opening, kind] of OPENINGS) if (start.startsWith(opening)) return kind;
  return undefined;
}
