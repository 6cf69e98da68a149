/**
 * `/rewind [N] [code|conversation|both]` and Esc Esc (issue 35): a picker of the conversation's user turns, then what to
 * restore — the files (the session's checkpoint before that message), the conversation (cut back to before it, its
 * text back in the prompt), or both — with what the rewind would change shown first (a dry run: files added, changed,
 * deleted, and what is not restorable). With its arguments the command acts without asking. The face only asks and
 * translates: the session does the rewinds.
 */
import type { RewindResult } from '../session/index.js';
import { typedText } from '../tool/message-origin.js';
import type { MessageParam } from '../tool/tool.js';
import { drawConversation } from './draw-conversation.js';
import type { TerminalSession } from './session.js';

type What = 'code' | 'conversation' | 'both';

interface Turn {
  readonly index: number;
  readonly text: string;
}

/** The user turns of the conversation (typed messages, not tool results), oldest first. */
function userTurns(messages: readonly MessageParam[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((m, index) => {
    if (m.role !== 'user') return;
    const text = typedText(m);
    if (text.trim() !== '' && !(typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result'))) turns.push({ index, text });
  });
  return turns;
}

/** What a file rewind would do, in a few lines. */
export function describeRewind(r: RewindResult): string {
  if (!r.canRewind && r.error) return `Files: ${r.error}`;
  const lines = [`Files: ${r.added?.length ?? 0} added since (removed), ${r.changed?.length ?? 0} changed (written back), ${r.deleted?.length ?? 0} deleted (recreated)`];
  for (const line of (r.notRestorable ?? []).slice(0, 8)) lines.push(`Not restorable: ${line}`);
  if ((r.notRestorable?.length ?? 0) > 8) lines.push(`Not restorable: … and ${r.notRestorable!.length - 8} more`);
  return lines.join('\n');
}

async function choose(terminal: TerminalSession, question: string, header: string, options: { label: string; description: string }[]): Promise<number> {
  const answer = await terminal.store.askQuestion({ kind: 'choice', questions: [{ question, header, options }], signal: new AbortController().signal });
  if (answer.action !== 'accept') return -1;
  return options.findIndex((o) => o.label === answer.answers?.[question]);
}

export function rewindCommand(terminal: TerminalSession, args: readonly string[]): void {
  const { store, session } = terminal;
  if (terminal.busy) return store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
  terminal.track(async () => {
    const turns = userTurns(session.messages);
    if (turns.length === 0) return store.notice('Nothing to rewind to yet.');
    let turn: Turn | undefined;
    if (args[0] !== undefined) {
      turn = turns[Number(args[0]) - 1];
      if (!turn) return store.notice(`No turn ${args[0]}: there are ${turns.length}.`, 'warn');
    } else {
      const shown = turns.slice(-9).reverse();
      const i = await choose(
        terminal,
        'Rewind to before which message?',
        'Rewind',
        shown.map((t) => ({ label: `${turns.indexOf(t) + 1}. ${t.text.replace(/\s+/g, ' ').slice(0, 60)}`, description: `message ${t.index + 1} of the conversation` })),
      );
      turn = shown[i];
      if (!turn) return store.notice('Not rewound.');
    }
    const record = (await session.checkpoints()).find((r) => r.index === turn.index);
    const preview = record ? describeRewind(await session.rewindFiles(record.id, { dryRun: true })) : 'Files: no checkpoint before this message (only the conversation can be rewound).';
    let what = args[1] as What | undefined;
    if (what === undefined) {
      const options = [
        { label: 'Restore code and conversation', description: preview },
        { label: 'Restore conversation', description: 'the files stay as they are' },
        { label: 'Restore code', description: preview },
      ];
      const i = await choose(terminal, `Rewind to before "${turn.text.slice(0, 60)}"?`, 'Restore', record ? options : options.slice(1, 2));
      what = (record ? (['both', 'conversation', 'code'] as const) : (['conversation'] as const))[i];
      if (!what) return store.notice('Not rewound.');
    } else if (!['code', 'conversation', 'both'].includes(what)) return store.notice('Say code, conversation or both.', 'warn');
    else store.notice(preview);
    if (what !== 'conversation') {
      if (!record) return store.notice('No file checkpoint before this message: the files cannot be rewound.', 'warn');
      const r = await session.rewindFiles(record.id);
      store.notice(r.error ? `Files not fully restored: ${r.error}` : `Files restored (${r.filesChanged?.length ?? 0} files).`, r.error ? 'warn' : 'info');
    }
    if (what !== 'code') {
      const cut = await session.rewindConversation(turn.index);
      store.clear();
      drawConversation(store, cut.messages, (n) => session.findTool(n));
      store.setDraft(cut.text);
      store.notice(`Conversation rewound (session ${cut.sessionId}); your message is back in the prompt: ${cut.text.slice(0, 200)}`);
    }
  });
}
