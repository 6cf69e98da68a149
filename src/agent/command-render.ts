/**
 * From a skill's or custom command's text to what enters the conversation, as Claude Code 2.1 renders it:
 * 1. placeholders, in one pass over the file's text (an argument's own text is never scanned again): `$ARGUMENTS`
 *    (as typed), `$ARGUMENTS[N]` and `$N` (0-based, shell-style quoting; a missing one stays as written), names
 *    declared in `arguments` (missing: empty), `${CLAUDE_SKILL_DIR}`, `${CLAUDE_PLUGIN_ROOT}` (a plugin's), `${CLAUDE_PROJECT_DIR}`, `${CLAUDE_SESSION_ID}`;
 *    `\$1` is a literal `$1`. Arguments and no placeholder: `ARGUMENTS: <args>` is appended.
 * 2. `!` commands — `` !`cmd` `` at the start of a line or after a space, and ```` ```! ```` fenced blocks — each run
 *    as a Bash tool_use through the pipeline (hooks, the permission engine, redaction), never around it, and replaced
 *    by its result. A refused one is replaced by the refusal. (Claude Code aborts the whole invocation when one is not
 *    allowed or fails; toolgate keeps the rest and says which command did not run and why.)
 * 3. `@path` references (after a space or at a line start, naming an existing file): each read with a Read tool_use,
 *    same pipeline; its content follows the text, or the refusal does.
 */
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolUseOutcome } from '../execution/outcome.js';
import { toolResultText } from '../tool/tool-result.js';
import { quoteIn, shellQuotingMap, type ShellQuoting } from '../tools/shared/shell-word.js';

/** Runs one tool_use (Bash or Read) through the pipeline and returns its outcome. */
export type RunCommandCall = (toolName: 'Bash' | 'Read', input: Record<string, unknown>) => Promise<ToolUseOutcome>;

export interface RenderCommandInput {
  readonly body: string;
  /** The argument text as typed after `/name`. */
  readonly args: string;
  readonly argumentNames: readonly string[];
  /** A skill's folder (`${CLAUDE_SKILL_DIR}`); absent for a command. */
  readonly skillDir?: string;
  /** A plugin's folder (`${CLAUDE_PLUGIN_ROOT}`); absent outside plugins. */
  readonly pluginRoot?: string;
  readonly projectDir: string;
  readonly sessionId: string;
  /** Where `@path` references are resolved (the session's current directory). */
  readonly cwd: string;
  readonly homeDir?: string;
  /** `disableSkillShellExecution`: each `!` command is replaced by a note instead of being run. */
  readonly disableShell?: boolean;
  readonly run: RunCommandCall;
}

/** What replaces a `!` command when the settings turn them off (Claude Code's text). */
export const SHELL_DISABLED_TEXT = '[shell command execution disabled by policy]';

export interface RenderedCommand {
  readonly text: string;
  /** One text per `@` file: its content, or why it was not read. */
  readonly attachments: readonly string[];
}

/** At most this many `@` files are read for one invocation. */
export const MAX_FILE_REFERENCES = 20;

export async function renderCommand(input: RenderCommandInput): Promise<RenderedCommand> {
  const substituted = substitutePlaceholders(input);
  const commands = findShellCommands(substituted);
  // References are looked for in the file's text only, not in what its commands print.
  let withoutCommands = substituted;
  for (const c of [...commands].reverse()) withoutCommands = withoutCommands.slice(0, c.start) + withoutCommands.slice(c.end);
  const refs = findFileReferences(withoutCommands, input.cwd, input.homeDir);

  let text = '';
  let at = 0;
  for (const c of commands) {
    text += substituted.slice(at, c.start) + (input.disableShell ? SHELL_DISABLED_TEXT : await runShell(c.command, input.run));
    at = c.end;
  }
  text += substituted.slice(at);

  const attachments: string[] = [];
  for (const ref of refs.slice(0, MAX_FILE_REFERENCES)) attachments.push(await readReference(ref, input.run));
  if (refs.length > MAX_FILE_REFERENCES) attachments.push(`[${refs.length - MAX_FILE_REFERENCES} more @ references were not read: at most ${MAX_FILE_REFERENCES} per invocation]`);
  return { text, attachments };
}

/** Shell-style words: quotes group, backslash escapes, quotes are removed. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  let current = '';
  let has = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < args.length && '"\\$`'.includes(args[i + 1]!)) current += args[++i];
      else current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (ch === '\\' && i + 1 < args.length) {
      current += args[++i];
      has = true;
    } else if (/\s/.test(ch)) {
      if (has) out.push(current);
      current = '';
      has = false;
    } else {
      current += ch;
      has = true;
    }
  }
  if (has) out.push(current);
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function substitutePlaceholders(input: Pick<RenderCommandInput, 'body' | 'args' | 'argumentNames' | 'skillDir' | 'pluginRoot' | 'projectDir' | 'sessionId'>): string {
  const words = splitArguments(input.args);
  const names = [...input.argumentNames].filter((n) => /^[A-Za-z_][\w-]*$/.test(n)).sort((a, b) => b.length - a.length);
  const named = names.length > 0 ? `|(${names.map(escapeRe).join('|')})(?![\\w-])` : '';
  const re = new RegExp(`(\\\\*)\\$(?:\\{(CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR|CLAUDE_SESSION_ID)\\}|ARGUMENTS\\[(\\d+)\\]|(ARGUMENTS)|(\\d+)${named})`, 'g');
  let usedArguments = false;
  const inShell = shellSpansOf(input.body);
  const text = input.body.replace(re, (...m: unknown[]) => {
    const [whole, slashes, variable, index, all, digit] = m as [string, string, string?, string?, string?, string?];
    // The declared-name group exists only when names are declared; the match's offset is always second to last.
    const name = names.length > 0 ? (m[6] as string | undefined) : undefined;
    const offset = m.at(-2) as number;
    // A single backslash escapes an argument placeholder (not a ${CLAUDE_*} variable); any other run stays as is.
    if (slashes.length === 1 && variable === undefined) return whole.slice(1);
    if (variable !== undefined) {
      const value = variable === 'CLAUDE_SKILL_DIR' ? input.skillDir : variable === 'CLAUDE_PLUGIN_ROOT' ? input.pluginRoot : variable === 'CLAUDE_PROJECT_DIR' ? input.projectDir : input.sessionId;
      if (value === undefined) return whole;
      // Inside a `!` command a folder's path is quoted for where it stands: a --plugin-dir path with a quote, `$` or
      // `;` stays one word of the command, never more of it.
      const quoting = inShell(offset + slashes.length);
      return slashes + (quoting === undefined ? value : quoteIn(quoting, value));
    }
    usedArguments = true;
    if (all !== undefined) return slashes + input.args;
    const n = index ?? digit;
    if (n !== undefined) {
      const word = words[Number(n)];
      return word === undefined ? whole : slashes + word;
    }
    // A declared name maps to its position; with no word there it is empty.
    return slashes + (words[input.argumentNames.indexOf(name!)] ?? '');
  });
  if (!usedArguments && input.args.trim() !== '') return `${text.replace(/\s*$/, '')}\n\nARGUMENTS: ${input.args}`;
  return text;
}

/** The shell quoting at a position of `body` inside one of its `!` commands; undefined outside them. */
function shellSpansOf(body: string): (at: number) => ShellQuoting | undefined {
  const spans = findShellCommands(body).map((span) => ({ span, map: shellQuotingMap(body.slice(span.start, span.end)) }));
  return (at) => {
    const hit = spans.find(({ span }) => at >= span.start && at < span.end);
    return hit?.map[at - hit.span.start];
  };
}

interface ShellSpan {
  readonly start: number;
  readonly end: number;
  readonly command: string;
}

/** `` !`cmd` `` after a line start or whitespace, and ```` ```! ```` fenced blocks, in order of appearance. */
export function findShellCommands(text: string): ShellSpan[] {
  const spans: ShellSpan[] = [];
  for (const m of text.matchAll(/^```![ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*$/gm)) {
    spans.push({ start: m.index, end: m.index + m[0].length, command: m[1]! });
  }
  const inFence = (i: number) => spans.some((s) => i >= s.start && i < s.end);
  for (const m of text.matchAll(/(^|[ \t])!`([^`\n]+)`/gm)) {
    const start = m.index + m[1]!.length;
    if (!inFence(start)) spans.push({ start, end: m.index + m[0].length, command: m[2]! });
  }
  return spans.filter((s) => s.command.trim() !== '').sort((a, b) => a.start - b.start);
}

async function runShell(command: string, run: RunCommandCall): Promise<string> {
  const outcome = await run('Bash', { command, description: 'Shell command of a skill or slash command' });
  const text = toolResultText(outcome.result).trim();
  if (refused(outcome)) return `[shell command not run: \`${command}\` was refused — ${stripErrorTag(text)}]`;
  return text;
}

interface FileReference {
  readonly written: string;
  readonly file: string;
}

/** `@path` at a line start or after whitespace, naming an existing file (trailing punctuation is not part of it). */
export function findFileReferences(text: string, cwd: string, homeDir?: string): FileReference[] {
  const out: FileReference[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(/(?:^|\s)@((?:[^\s"'`<>()[\]{}]|\\ )+)/gm)) {
    const written = m[1]!.replace(/[.,;:!?]+$/, '');
    if (written === '') continue;
    const unescaped = written.replace(/\\ /g, ' ');
    const file = unescaped.startsWith('~/') ? path.join(homeDir ?? os.homedir(), unescaped.slice(2)) : path.resolve(cwd, unescaped);
    if (seen.has(file) || !isFile(file)) continue;
    seen.add(file);
    out.push({ written, file });
  }
  return out;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

async function readReference(ref: FileReference, run: RunCommandCall): Promise<string> {
  const outcome = await run('Read', { file_path: ref.file });
  const text = toolResultText(outcome.result);
  if (refused(outcome)) return `[@${ref.written} was not read: ${stripErrorTag(text.trim())}]`;
  if (outcome.isError) return `[@${ref.written} could not be read: ${stripErrorTag(text.trim())}]`;
  return `Contents of @${ref.written} (${ref.file}):\n${text}`;
}

/** Stopped before it ran: by a hook or the permission engine (a person's "no", a rule, headless). */
function refused(outcome: ToolUseOutcome): boolean {
  return outcome.stage === 'permission' || outcome.stage === 'hook' || outcome.decision?.behavior === 'deny';
}

function stripErrorTag(text: string): string {
  return text.replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, '$1').trim();
}
