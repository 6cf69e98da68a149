/**
 * A message between members of an agent team, as the terminal shows it: an envelope and "sender → recipient" in the
 * team's colour, the preview, then the body indented — never drawn as the person's words (`›`) nor the model's (`●`),
 * since it is neither.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';

const MAX_LINES = 12;

export function TeammateMessage({ from, to, summary, text }: { from: string; to: string; summary?: string; text: string }): ReactNode {
  const lines = text.split('\n');
  const shown = lines.length > MAX_LINES ? [...lines.slice(0, MAX_LINES), `… +${lines.length - MAX_LINES} lines`] : lines;
  return (
    <Box marginTop={1} flexDirection="column">
      <Text>
        <Text color="magenta">✉ {from} → {to}</Text>
        {summary ? <Text dimColor> {summary}</Text> : null}
      </Text>
      <Box marginLeft={2} flexDirection="column">
        {shown.map((line, i) => (
          <Text key={i} wrap="wrap">
            {line}
          </Text>
        ))}
      </Box>
    </Box>
  );
}
