/**
 * The menu under the prompt while a `/command` is being typed: the commands whose name starts with what was typed
 * (then those that contain it), the highlighted one first in colour. ↑/↓ move, Tab completes, Enter runs the
 * highlighted one (the prompt input handles the keys).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { MenuCommand } from './session-store.js';

/** How many entries the menu shows at once. */
export const MENU_ROWS = 8;

/** The commands the menu offers for the prompt's text (none once the command has arguments or lines). */
export function menuMatches(commands: readonly MenuCommand[], value: string): readonly MenuCommand[] {
  if (!value.startsWith('/') || /\s/.test(value)) return [];
  const typed = value.slice(1).toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(typed));
  const contains = typed === '' ? [] : commands.filter((c) => !c.name.toLowerCase().startsWith(typed) && c.name.toLowerCase().includes(typed));
  return [...starts, ...contains];
}

export function SlashMenu({ matches, selected }: { matches: readonly MenuCommand[]; selected: number }): ReactNode {
  if (matches.length === 0) return null;
  // The window of rows keeps the highlighted entry in view.
  const first = Math.min(Math.max(0, selected - MENU_ROWS + 1), Math.max(0, matches.length - MENU_ROWS));
  const shown = matches.slice(first, first + MENU_ROWS);
  const width = Math.max(...shown.map((c) => c.name.length + (c.argumentHint ? c.argumentHint.length + 1 : 0))) + 3;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {shown.map((c, i) => {
        const here = first + i === selected;
        return (
          <Text key={c.name} color={here ? 'cyan' : undefined} dimColor={!here}>
            {`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}`.padEnd(width)}
            {c.description}
          </Text>
        );
      })}
      {matches.length > shown.length ? <Text dimColor>{`  … ${matches.length - shown.length} more`}</Text> : null}
    </Box>
  );
}
