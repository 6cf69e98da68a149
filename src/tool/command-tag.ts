/**
 * The first block of the user message a person's `/name args` becomes (Claude Code's tags): the command line as the
 * person typed it. What follows it in that message — the command file's text with its `!` commands' output, the
 * contents of its `@` files — was pulled in by the command, not typed. Written by agent/slash-commands.ts; read by the
 * auto-mode classifier's transcript (permissions/classifier-transcript.ts), which shows only the line as the user's
 * words and the rest as quoted context.
 */

/** Each tag on its line, the last one ended by a newline too, as Claude Code 2.1.332 sends it (test/parity/cli/commands.json). */
export function formatCommandTag(name: string, args: string): string {
  return `<command-message>${name}</command-message>\n<command-name>/${name}</command-name>\n${args ? `<command-args>${args}</command-args>\n` : ''}`;
}

export interface CommandTag {
  /** `/name args`, as typed. */
  readonly line: string;
  readonly name: string;
  /** Whatever followed the tag in the same text (nothing, as the house writes it: the rest has blocks of its own). */
  readonly rest: string;
}

const TAG = /^<command-message>([^<\n]*)<\/command-message>\n<command-name>\/([^<\n]*)<\/command-name>(?:\n<command-args>([\s\S]*?)<\/command-args>)?\n?/;

/** The command line at the start of `text`, or undefined when `text` does not start with the tag. */
export function readCommandTag(text: string): CommandTag | undefined {
  const m = TAG.exec(text);
  if (!m) return undefined;
  const args = m[3] ?? '';
  return { line: `/${m[2]}${args ? ` ${args}` : ''}`, name: m[2]!, rest: text.slice(m[0].length) };
}
