/**
 * The prompt line: Enter sends; a paste keeps its line breaks (a chunk of several characters with newlines is a paste,
 * not a typed Enter); Alt+Enter or a trailing backslash adds a line; ↑/↓ walk the history (within a multi-line
 * prompt they move between its lines first); ←/→, Ctrl+A/E, Ctrl+U/K/W edit.
 */
import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { MenuCommand } from './session-store.js';
import { menuMatches, SlashMenu } from './slash-menu.js';

export interface PromptInputProps {
  readonly history: readonly string[];
  readonly onSubmit: (text: string) => void;
  /** Ctrl+D on an empty prompt. */
  readonly onExit: () => void;
  readonly isActive: boolean;
  readonly placeholder?: string;
  /** Reports whether the prompt is empty (a second Ctrl+C exits only then). */
  readonly onChange?: (value: string) => void;
  /** Text to put in the prompt, replacing it (a new `seq` each time): queued messages taken back, a clear. */
  readonly draft?: { readonly text: string; readonly seq: number };
  /** Told when `draft` has been put in the prompt. */
  readonly onDraftApplied?: (seq: number) => void;
  /** What the `/` menu offers. */
  readonly commands?: readonly MenuCommand[];
}

export function PromptInput({ history, onSubmit, onExit, isActive, placeholder, onChange, draft, onDraftApplied, commands = [] }: PromptInputProps): ReactNode {
  const [state, setState] = useState({ value: '', cursor: 0 });
  const [menuIndex, setMenuIndex] = useState(0);
  const selected = useRef(0);
  const pickMenu = (i: number) => {
    selected.current = i;
    setMenuIndex(i);
  };
  // Keys can arrive faster than React re-renders: the handler reads and writes the latest state through a ref.
  const latest = useRef(state);
  const browsing = useRef<{ index: number; draft: string } | null>(null);
  const set = (value: string, cursor: number) => {
    if (value !== latest.current.value) pickMenu(0);
    latest.current = { value, cursor: Math.max(0, Math.min(cursor, value.length)) };
    setState(latest.current);
    onChange?.(value);
  };
  const draftSeq = draft?.seq;
  useEffect(() => {
    if (draft === undefined) return;
    browsing.current = null;
    set(draft.text, draft.text.length);
    onDraftApplied?.(draft.seq);
    // Only a new draft replaces the prompt.
  }, [draftSeq]);
  const insert = (text: string) => {
    const { value, cursor } = latest.current;
    set(value.slice(0, cursor) + text + value.slice(cursor), cursor + text.length);
  };

  useKeys(
    (input, key) => {
      const { value, cursor } = latest.current;
      // While a /command is typed, the menu takes ↑/↓, Tab and Enter.
      const matches = menuMatches(commands, value);
      if (matches.length > 0) {
        const current = Math.min(selected.current, matches.length - 1);
        if (key.upArrow || key.downArrow) return pickMenu((current + (key.upArrow ? matches.length - 1 : 1)) % matches.length);
        if (key.tab && !key.shift) {
          const name = `/${matches[current]!.name} `;
          return set(name, name.length);
        }
        if (key.return && !key.meta && input.length <= 1) {
          const line = `/${matches[current]!.name}`;
          browsing.current = null;
          set('', 0);
          onSubmit(line);
          return;
        }
      }
      if (key.return && !key.meta && input.length <= 1) {
        if (value.endsWith('\\') && cursor === value.length) return set(`${value.slice(0, -1)}\n`, value.length);
        if (value.trim() === '') return;
        browsing.current = null;
        set('', 0);
        onSubmit(value);
        return;
      }
      if (key.return && key.meta) return insert('\n');
      if (key.ctrl && input === 'd') {
        if (value === '') onExit();
        else set(value.slice(0, cursor) + value.slice(cursor + 1), cursor);
        return;
      }
      if (key.upArrow || key.downArrow) return moveVertically(key.upArrow ? -1 : 1);
      if (key.leftArrow) return set(value, cursor - 1);
      if (key.rightArrow) return set(value, cursor + 1);
      if (key.home || (key.ctrl && input === 'a')) return set(value, lineStart(value, cursor));
      if (key.end || (key.ctrl && input === 'e')) return set(value, lineEnd(value, cursor));
      if (key.ctrl && input === 'u') {
        const start = lineStart(value, cursor);
        return set(value.slice(0, start) + value.slice(cursor), start);
      }
      if (key.ctrl && input === 'k') return set(value.slice(0, cursor) + value.slice(lineEnd(value, cursor)), cursor);
      if (key.ctrl && input === 'w') {
        const start = value.slice(0, cursor).replace(/\S+\s*$/, '').length;
        return set(value.slice(0, start) + value.slice(cursor), start);
      }
      if (key.backspace || key.delete) {
        if (cursor === 0) return;
        return set(value.slice(0, cursor - 1) + value.slice(cursor), cursor - 1);
      }
      if (key.ctrl || key.meta || key.escape || key.tab || input === '') return;
      // Bracketed-paste markers, if the terminal sends them, carry nothing to insert.
      // eslint-disable-next-line no-control-regex -- the paste markers start with ESC
      const text = input.replace(/\x1b\[20[01]~/g, '');
      // One line then Enter in a single chunk (typed fast, or sent by a program): the line, submitted.
      if (/^[^\r\n]+\r$/.test(text)) {
        const line = value.slice(0, cursor) + text.slice(0, -1) + value.slice(cursor);
        browsing.current = null;
        set('', 0);
        onSubmit(line);
        return;
      }
      insert(text.replace(/\r\n?/g, '\n'));
    },
    { isActive },
  );

  function moveVertically(step: -1 | 1): void {
    const { value, cursor } = latest.current;
    const lines = value.split('\n');
    const row = value.slice(0, cursor).split('\n').length - 1;
    if ((step < 0 && row > 0) || (step > 0 && row < lines.length - 1)) {
      const col = cursor - lineStart(value, cursor);
      const target = lines.slice(0, row + step).reduce((n, l) => n + l.length + 1, 0);
      return set(value, target + Math.min(col, lines[row + step]!.length));
    }
    if (history.length === 0) return;
    const current = browsing.current;
    const index = (current?.index ?? history.length) + step;
    if (index < 0) return;
    if (index >= history.length) {
      browsing.current = null;
      const draft = current?.draft ?? '';
      return set(draft, draft.length);
    }
    browsing.current = { index, draft: current?.draft ?? value };
    set(history[index]!, history[index]!.length);
  }

  const { value, cursor } = state;
  const lines = value.split('\n');
  const matches = isActive ? menuMatches(commands, value) : [];
  let offset = 0;
  return (
    <Box flexDirection="column">
      {lines.map((line, row) => {
        const start = offset;
        offset += line.length + 1;
        const here = isActive && cursor >= start && cursor <= start + line.length;
        const col = cursor - start;
        return (
          <Text key={row}>
            <Text color="cyan">{row === 0 ? '› ' : '  '}</Text>
            {value === '' && placeholder ? (
              <>
                {isActive ? <Text inverse>{placeholder[0]}</Text> : null}
                <Text dimColor>{isActive ? placeholder.slice(1) : placeholder}</Text>
              </>
            ) : here ? (
              <>
                {line.slice(0, col)}
                <Text inverse>{line[col] ?? ' '}</Text>
                {line.slice(col + 1)}
              </>
            ) : (
              line
            )}
          </Text>
        );
      })}
      <SlashMenu matches={matches} selected={Math.min(menuIndex, Math.max(0, matches.length - 1))} />
    </Box>
  );
}

function lineStart(value: string, cursor: number): number {
  return value.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(value: string, cursor: number): number {
  const i = value.indexOf('\n', cursor);
  return i === -1 ? value.length : i;
}
