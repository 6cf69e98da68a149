/**
 * Namespaced custom commands (`/namespace:command` from `.claude/commands/namespace/…`): the project's command files
 * and the prompts typed, and what of the first request's user message the recording keeps — its text blocks that are
 * not the loop's own `<system-reminder>`s (the command's tags and its expanded text), folders as `$DIR`.
 */
import fs from 'node:fs';
import path from 'node:path';

export const COMMANDS_RECORDING = path.join(import.meta.dirname, 'commands.json');

export const COMMAND_FILES: Readonly<Record<string, string>> = {
  '.claude/commands/ns/hello.md': '---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS from the ns namespace.\n',
  '.claude/commands/ns/deep/two.md': 'Two levels: $1 and $2.\n',
  '.claude/commands/top.md': 'Top level, no arguments.\n',
};

export const COMMAND_PROMPTS: readonly string[] = ['/ns:hello world', '/ns:deep:two alpha beta', '/ns:hello', '/top', '/ns:hello  spaced   out '];

export function makeCommandProject(dir: string): void {
  for (const [file, text] of Object.entries(COMMAND_FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
}

/** The first request's user message, without the reminders: each text block, folders as placeholders. */
export function commandBlocks(body: { messages: { role: string; content: string | { type: string; text?: string }[] }[] }, dir: string): string[] {
  const first = body.messages.find((m) => m.role === 'user');
  if (!first) return [];
  const blocks = typeof first.content === 'string' ? [{ type: 'text', text: first.content }] : first.content;
  return blocks.filter((b) => b.type === 'text' && !b.text!.startsWith('<system-reminder>')).map((b) => b.text!.replaceAll(dir, '$DIR'));
}
