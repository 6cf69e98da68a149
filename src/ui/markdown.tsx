/**
 * Markdown for a terminal: `marked`'s lexer, drawn with Ink — headings bold, emphasis, inline code in colour, fenced
 * code in a dim gutter, lists with their markers, quotes with a bar, links as text with the address after. Whatever
 * the lexer does not know is drawn as its raw text, never dropped.
 */
import { Box, Text } from 'ink';
import { Lexer, type Token, type Tokens } from 'marked';
import { memo, type ReactNode } from 'react';

export const Markdown = memo(function Markdown({ text }: { text: string }): ReactNode {
  let tokens: Token[];
  try {
    tokens = Lexer.lex(text, { gfm: true });
  } catch {
    return <Text>{text}</Text>;
  }
  return <Box flexDirection="column">{blocks(tokens)}</Box>;
});

function blocks(tokens: readonly Token[]): ReactNode[] {
  const out: ReactNode[] = [];
  tokens.forEach((token, i) => {
    const node = block(token, i);
    if (node !== null) out.push(node);
  });
  return out;
}

function block(token: Token, key: number): ReactNode {
  switch (token.type) {
    case 'space':
      return null;
    case 'heading': {
      const t = token as Tokens.Heading;
      return (
        <Text key={key} bold underline={t.depth === 1}>
          {inline(t.tokens)}
        </Text>
      );
    }
    case 'paragraph':
      return <Text key={key}>{inline((token as Tokens.Paragraph).tokens)}</Text>;
    case 'text': {
      const t = token as Tokens.Text;
      return <Text key={key}>{t.tokens ? inline(t.tokens) : t.text}</Text>;
    }
    case 'code': {
      const t = token as Tokens.Code;
      return (
        <Box key={key} flexDirection="column" paddingLeft={2}>
          {t.lang ? <Text dimColor>{t.lang}</Text> : null}
          <Text color="cyan">{t.text}</Text>
        </Box>
      );
    }
    case 'list': {
      const t = token as Tokens.List;
      const start = typeof t.start === 'number' ? t.start : 1;
      return (
        <Box key={key} flexDirection="column">
          {t.items.map((item, j) => {
            const marker = item.task ? (item.checked ? '☒ ' : '☐ ') : t.ordered ? `${start + j}. ` : '• ';
            return (
              <Box key={j} flexDirection="row">
                <Text>{marker}</Text>
                <Box flexDirection="column" flexShrink={1}>
                  {blocks(item.tokens.filter((x) => x.type !== 'checkbox'))}
                </Box>
              </Box>
            );
          })}
        </Box>
      );
    }
    case 'blockquote':
      return (
        <Box key={key} flexDirection="row">
          <Text dimColor>│ </Text>
          <Box flexDirection="column" flexShrink={1}>
            {blocks((token as Tokens.Blockquote).tokens)}
          </Box>
        </Box>
      );
    case 'hr':
      return (
        <Text key={key} dimColor>
          ────────
        </Text>
      );
    case 'table': {
      const t = token as Tokens.Table;
      const rows = [t.header.map((c) => c.text), ...t.rows.map((r) => r.map((c) => c.text))];
      const widths = t.header.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
      const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ');
      return (
        <Box key={key} flexDirection="column">
          <Text bold>{line(rows[0]!)}</Text>
          {rows.slice(1).map((r, j) => (
            <Text key={j}>{line(r)}</Text>
          ))}
        </Box>
      );
    }
    default:
      return <Text key={key}>{'raw' in token ? String(token.raw).replace(/\n+$/, '') : ''}</Text>;
  }
}

function inline(tokens: readonly Token[] | undefined): ReactNode[] {
  if (!tokens) return [];
  return tokens.map((token, i) => {
    switch (token.type) {
      case 'strong':
        return (
          <Text key={i} bold>
            {inline((token as Tokens.Strong).tokens)}
          </Text>
        );
      case 'em':
        return (
          <Text key={i} italic>
            {inline((token as Tokens.Em).tokens)}
          </Text>
        );
      case 'del':
        return (
          <Text key={i} strikethrough>
            {inline((token as Tokens.Del).tokens)}
          </Text>
        );
      case 'codespan':
        return (
          <Text key={i} color="cyan">
            {decode((token as Tokens.Codespan).text)}
          </Text>
        );
      case 'link': {
        const t = token as Tokens.Link;
        const label = t.text;
        return (
          <Text key={i}>
            <Text underline>{inline(t.tokens)}</Text>
            {label !== t.href ? <Text dimColor> ({t.href})</Text> : null}
          </Text>
        );
      }
      case 'br':
        return <Text key={i}>{'\n'}</Text>;
      case 'text': {
        const t = token as Tokens.Text;
        return <Text key={i}>{t.tokens ? inline(t.tokens) : decode(t.text)}</Text>;
      }
      case 'escape':
        return <Text key={i}>{decode((token as Tokens.Escape).text)}</Text>;
      default:
        return <Text key={i}>{'raw' in token ? decode(String(token.raw)) : ''}</Text>;
    }
  });
}

// marked escapes HTML entities in text; a terminal wants the characters.
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? _);
}
