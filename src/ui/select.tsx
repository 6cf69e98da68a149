/** A vertical list of choices: ↑/↓ (or j/k) move, Enter or the choice's number picks, Esc cancels. */
import { Box, Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useRef, useState, type ReactNode } from 'react';

export interface Choice {
  readonly label: ReactNode;
  readonly hint?: ReactNode;
}

export function Select({
  choices,
  onPick,
  onCancel,
  isActive = true,
  marked,
  onToggle,
}: {
  choices: readonly Choice[];
  onPick: (index: number) => void;
  onCancel?: () => void;
  isActive?: boolean;
  /** Multi-select: which choices are ticked; Space toggles the one under the cursor. */
  marked?: ReadonlySet<number>;
  onToggle?: (index: number) => void;
}): ReactNode {
  const [cursor, setState] = useState(0);
  const latest = useRef(0);
  const setCursor = (c: number) => {
    latest.current = c;
    setState(c);
  };
  useKeys(
    (input, key) => {
      const cursor = latest.current;
      if (key.upArrow || input === 'k') setCursor((cursor + choices.length - 1) % choices.length);
      else if (key.downArrow || input === 'j') setCursor((cursor + 1) % choices.length);
      else if (key.return) onPick(cursor);
      else if (key.escape) onCancel?.();
      else if (input === ' ' && onToggle) onToggle(cursor);
      else if (/^[1-9]$/.test(input) && Number(input) <= choices.length) {
        if (onToggle) onToggle(Number(input) - 1);
        else onPick(Number(input) - 1);
      }
    },
    { isActive },
  );
  return (
    <Box flexDirection="column">
      {choices.map((choice, i) => (
        <Box key={i} flexDirection="column">
          <Text color={i === cursor ? 'cyan' : undefined}>
            {i === cursor ? '❯ ' : '  '}
            {marked ? (marked.has(i) ? '[x] ' : '[ ] ') : ''}
            {i + 1}. {choice.label}
          </Text>
          {choice.hint ? (
            <Box paddingLeft={5}>
              <Text dimColor>{choice.hint}</Text>
            </Box>
          ) : null}
        </Box>
      ))}
    </Box>
  );
}
