/**
 * The interactive session in Ink: finished items written once through `<Static>` (long sessions neither flicker nor
 * slow down), then the live part — streaming text, running tools — then the open dialog or the prompt, then the
 * status line (mode, model, background tasks). The layout follows the terminal's width, so a resize reflows it.
 */
import { Box, Static, Text, useApp, useStdout } from 'ink';
import { KeysProvider, useKeys } from './use-keys.js';
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { ToolRenderOptions } from '../tool/tool.js';
import { Markdown } from './markdown.js';
import { PermissionDialog } from './permission-dialog.js';
import { PromptInput } from './prompt-input.js';
import { QuestionDialog } from './question-dialog.js';
import type { TerminalSession } from './session.js';
import type { BackgroundTask, Dialog, Item, SessionStore } from './session-store.js';
import { TeammateMessage } from './teammate-message.js';
import { ToolCall } from './tool-call.js';

export interface AppProps {
  readonly store: SessionStore;
  readonly session: TerminalSession;
  readonly cwd: string;
  /** Called when the person leaves (Ctrl+D, Ctrl+C twice, /exit). */
  readonly onExit: () => void;
  /** Background tasks, polled for the status line. */
  readonly listTasks?: () => readonly BackgroundTask[];
}

export function App(props: AppProps): ReactNode {
  return (
    <KeysProvider>
      <Session_ {...props} />
    </KeysProvider>
  );
}

function Session_({ store, session, cwd, onExit, listTasks }: AppProps): ReactNode {
  const snapshot = useSyncExternalStore(store.subscribe.bind(store), store.getSnapshot);
  const columns = useColumns();
  const { exit } = useApp();
  const [armedExit, setArmedExit] = useState(false);
  const promptEmpty = useRef(true);
  const promptText = useRef('');
  const lastEscape = useRef(0);
  // The prompt is remounted after each dialog: a draft it already took must not come back.
  const appliedDraft = useRef(0);
  const options: ToolRenderOptions = { columns, verbose: false, cwd };
  const dialog = snapshot.dialogs[0];

  const leave = () => {
    onExit();
    exit();
  };

  useEffect(() => {
    if (!listTasks) return;
    const timer = setInterval(() => {
      const tasks = listTasks();
      const now = store.getSnapshot().tasks;
      if (tasks.length !== now.length || tasks.some((t, i) => t.id !== now[i]?.id)) store.setTasks(tasks);
    }, 1000);
    return () => clearInterval(timer);
  }, [listTasks, store]);

  useKeys((input, key) => {
    if (key.ctrl && input === 'c') {
      // A running turn: interrupted. Text in the prompt: cleared. An empty prompt: a warning, and a second press leaves
      // (one stray Ctrl+C must not end a session).
      if (session.interrupt()) {
        setArmedExit(false);
        return;
      }
      // Interrupted already, the turn waits for a call that must not be cut halfway: leaving does not wait (the
      // notice said so), and the runtime's shutdown stops the call.
      if (session.busy) return leave();
      if (!promptEmpty.current) {
        store.setDraft('');
        return;
      }
      if (armedExit) return leave();
      setArmedExit(true);
      return;
    }
    if (armedExit) setArmedExit(false);
    if (key.escape && !dialog) {
      // Esc on an idle session, twice within a second: the /rewind picker (issue 35) — or, with text in the prompt, the
      // text cleared and kept in the history (↑ brings it back), as Claude Code does.
      if (!session.busy && Date.now() - lastEscape.current < 1000) {
        lastEscape.current = 0;
        if (promptEmpty.current) session.runCommand('/rewind');
        else {
          session.remember(promptText.current);
          store.setDraft('');
        }
        return;
      }
      lastEscape.current = Date.now();
      session.interrupt();
      return;
    }
    if (key.tab && key.shift) session.cycleMode();
    if (key.ctrl && input === 'b' && session.busy) session.moveToBackground();
  });

  return (
    <Box flexDirection="column">
      <Static key={snapshot.epoch} items={snapshot.finished as Item[]}>
        {(item) => <ItemView key={item.id} item={item} options={options} />}
      </Static>
      {snapshot.live.map((item) => (
        <ItemView key={item.id} item={item} options={options} />
      ))}
      {dialog ? (
        <DialogView dialog={dialog} options={options} />
      ) : (
        <Box marginTop={1} flexDirection="column">
          {snapshot.busy ? (
            snapshot.live.every((i) => i.kind !== 'tool' || i.outcome !== undefined) ? (
              <Text dimColor>✻ Working… (Esc to interrupt)</Text>
            ) : (
              <Text dimColor>Esc to interrupt · Ctrl+B to run in the background</Text>
            )
          ) : null}
          {snapshot.queued.map((text, i) => (
            <Text key={i} dimColor>
              {`⧗ queued: ${text.split('\n')[0]}`}
            </Text>
          ))}
          <PromptInput
            history={session.history}
            isActive={!dialog}
            {...(snapshot.draft && snapshot.draft.seq !== appliedDraft.current ? { draft: snapshot.draft } : {})}
            onDraftApplied={(seq) => {
              appliedDraft.current = seq;
            }}
            commands={snapshot.commands}
            placeholder={snapshot.busy ? 'Esc interrupts; a message typed now is sent when the turn ends' : 'Ask for something, or / for commands'}
            onChange={(v) => {
              promptEmpty.current = v === '';
              promptText.current = v;
            }}
            onSubmit={(text) => {
              if (session.submit(text) === 'exit') leave();
            }}
            onExit={leave}
          />
        </Box>
      )}
      <StatusLine mode={snapshot.mode} model={snapshot.model} tasks={snapshot.tasks} armedExit={armedExit} />
    </Box>
  );
}

function useColumns(): number {
  const { stdout } = useStdout();
  const [columns, setColumns] = useState(stdout.columns || 80);
  useEffect(() => {
    const onResize = () => setColumns(stdout.columns || 80);
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return columns;
}

export function ItemView({ item, options }: { item: Item; options: ToolRenderOptions }): ReactNode {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Text dimColor>› </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box marginTop={1} flexDirection="row">
          <Text>● </Text>
          <Box flexDirection="column" flexShrink={1}>
            <Markdown text={item.text} />
          </Box>
        </Box>
      );
    case 'notice':
      return (
        <Box marginTop={1}>
          <Text color={item.tone === 'error' ? 'red' : item.tone === 'warn' ? 'yellow' : undefined} dimColor={item.tone === 'info'}>
            {item.text}
          </Text>
        </Box>
      );
    case 'teammate':
      return <TeammateMessage from={item.from} to="team-lead" summary={item.summary} text={item.text} />;
    case 'tool':
      return <ToolCall item={item} options={options} />;
  }
}

function DialogView({ dialog, options }: { dialog: Dialog; options: ToolRenderOptions }): ReactNode {
  if (dialog.kind === 'permission') {
    return <PermissionDialog key={dialog.id} request={dialog.request} views={dialog.views} options={options} onAnswer={dialog.resolve} />;
  }
  return <QuestionDialog key={dialog.id} request={dialog.request} onAnswer={dialog.resolve} />;
}

const MODE_WORDS: Record<string, string> = {
  default: 'asks before changes',
  acceptEdits: 'accepts edits',
  plan: 'plan mode (read-only)',
  bypassPermissions: 'bypasses permissions',
  dontAsk: 'never asks',
  auto: 'auto',
  bubble: 'bubble',
};

function StatusLine({ mode, model, tasks, armedExit }: { mode: string; model: string; tasks: readonly BackgroundTask[]; armedExit: boolean }): ReactNode {
  return (
    <Box>
      <Text dimColor>
        {armedExit ? <Text color="yellow">Press Ctrl+C again to exit · </Text> : null}
        <Text color={mode === 'default' ? undefined : mode === 'bypassPermissions' ? 'red' : 'magenta'}>⏵ {MODE_WORDS[mode] ?? mode}</Text>
        {' (shift+tab) · '}
        {model}
        {tasks.length > 0 ? ` · ${tasks.length} background ${tasks.length === 1 ? 'task' : 'tasks'}: ${tasks.map((t) => t.label).join(', ')}` : ''}
      </Text>
    </Box>
  );
}
