/**
 * `toolgate exec [FILE|-]`: tool_use blocks in, the user message of tool_result blocks out, through the full pipeline
 * (settings, hooks, permission engine, StreamingToolExecutor). Input: an assistant message, an array of blocks, one
 * block, or JSON Lines of any of those. Headless: whatever would prompt is denied, naming the rule that would allow it.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { ToolResultBudget } from '../../execution/budget.js';
import { toolResultsMessage } from '../../execution/messages.js';
import type { ToolUseOutcome } from '../../execution/outcome.js';
import { StreamingToolExecutor } from '../../execution/streaming-tool-executor.js';
import { createHookRunner, parseHooksSettings } from '../../hooks/index.js';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { assembleToolPool } from '../../registry/tool-pool.js';
import { loadSettings } from '../../settings/load-settings.js';
import { createTaskRegistry } from '../../tools/bash/task-registry.js';
import { NotificationQueue } from '../../tool/notification-queue.js';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import type { AssistantMessage, MessageParam, ToolUseBlock } from '../../tool/tool.js';
import { createToolUseContext } from '../../tool/tool-use-context.js';

interface ExecOptions {
  cwd: string;
  settings: string[];
  mode?: string;
  json?: boolean;
  sessionDir?: string;
  allow: string[];
  deny: string[];
  ask: string[];
}

export class ExecInputError extends Error {
  override readonly name = 'ExecInputError';
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerExecCommand(program: Command): void {
  program
    .command('exec')
    .description('run tool_use blocks (assistant message, array of blocks, or JSON Lines) through the full pipeline and print the tool_result user message')
    .argument('[file]', 'input file, or - for stdin (the default)', '-')
    .option('--cwd <dir>', 'working directory (and project root for settings)', process.cwd())
    .option('--settings <file>', 'extra settings file or inline JSON (repeatable, later wins)', collect, [])
    .option('--mode <mode>', `permission mode: ${PERMISSION_MODES.join(', ')}`)
    .option('--allow <rule>', 'allow rule for this run, e.g. "Bash(git status)" (repeatable)', collect, [])
    .option('--deny <rule>', 'deny rule for this run (repeatable)', collect, [])
    .option('--ask <rule>', 'ask rule for this run (headless: denied) (repeatable)', collect, [])
    .option('--session-dir <dir>', 'where persisted outputs go (default: a new folder under the system temp dir)')
    .option('--json', 'print the user message as JSON')
    // Failures throw: main() prints "toolgate: <message>" and exits 1.
    .action((file: string, opts: ExecOptions) => runExec(file, opts));
}

async function runExec(file: string, opts: ExecOptions): Promise<void> {
  const cwd = path.resolve(opts.cwd);
  if (opts.mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(opts.mode)) {
    throw new ExecInputError(`unknown --mode "${opts.mode}" (expected one of: ${PERMISSION_MODES.join(', ')})`);
  }
  const text = file === '-' ? await readStdin() : await readInputFile(file);
  const blocks = parseToolUseInput(text);

  const settings = loadSettings({
    cwd,
    // Relative to where the command was typed, like any other path argument (not to --cwd).
    flagSettingsFiles: opts.settings.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))),
    mode: opts.mode as PermissionMode | undefined,
    cliRules: { allow: opts.allow, deny: opts.deny, ask: opts.ask },
  });
  for (const warning of settings.warnings) process.stderr.write(`toolgate: warning: ${warning}\n`);
  const hooks = parseHooksSettings(settings.hooksBySource.map((h) => ({ source: h.source, file: h.file, hooks: h.hooks })));
  for (const warning of hooks.warnings) process.stderr.write(`toolgate: warning: ${warning}\n`);
  // Fail closed: a rule or hook we could not read might be the one that should have stopped a call.
  const problems = [...settings.errors.map((e) => `${e.file}: ${e.message}`), ...hooks.errors];
  if (problems.length > 0) throw new ExecInputError(`settings could not be loaded, nothing was run:\n  ${problems.join('\n  ')}`);

  const sessionId = `exec-${Date.now().toString(36)}-${process.pid}`;
  const sessionDir = path.resolve(opts.sessionDir ?? path.join(os.tmpdir(), 'toolgate', sessionId));
  const tools = await assembleToolPool(settings.permissionContext, []);
  const tasks = createTaskRegistry();
  const context = createToolUseContext({
    tools,
    permissionContext: settings.permissionContext,
    cwd,
    sessionDir,
    sessionId,
    isNonInteractiveSession: true,
    contentReplacementState: new ToolResultBudget(),
    services: {
      hooks: createHookRunner({ config: hooks.config, sessionDir }),
      notifications: new NotificationQueue(),
      tasks,
    },
  });
  const onSignal = () => context.abortController.abort('SIGINT');
  process.once('SIGINT', onSignal);

  const assistantMessage: AssistantMessage = { role: 'assistant', content: blocks };
  const executor = new StreamingToolExecutor(tools, createCanUseTool(), context);
  const outcomes: ToolUseOutcome[] = [];
  try {
    // As if streamed: each block is handed over when it "arrives"; tools that may start, start at once.
    for (const block of blocks) {
      executor.addTool(block, assistantMessage);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    for await (const update of executor.getRemainingResults()) {
      if (update.type === 'result') outcomes.push(update.outcome);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    // One shot: nothing may outlive the command. Background tasks still running are ended and reported.
    const report = await tasks.shutdown();
    for (const task of report.ended) {
      process.stderr.write(`toolgate exec: background task ${task.id} (${task.command}) was still running and has been stopped; its output is in ${task.outputFile}\n`);
    }
  }

  const after = outcomes.flatMap((o) => o.newMessages);
  const message = toolResultsMessage(outcomes.map((o) => o.result), after);
  process.stdout.write(opts.json ? `${JSON.stringify(message, null, 2)}\n` : formatReadable(outcomes));
}

/** The tool_use blocks of the input, in order. Throws an `ExecInputError` naming the line or entry at fault. */
export function parseToolUseInput(text: string): ToolUseBlock[] {
  const trimmed = text.trim();
  if (trimmed.length === 0) throw new ExecInputError('no input: expected tool_use blocks as JSON or JSON Lines');
  let entries: { value: unknown; where: string }[];
  try {
    entries = [{ value: JSON.parse(trimmed), where: 'the input' }];
  } catch {
    entries = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line.length === 0) continue;
      try {
        entries.push({ value: JSON.parse(line), where: `line ${i + 1}` });
      } catch (error) {
        throw new ExecInputError(`line ${i + 1} is not valid JSON (${(error as Error).message}); expected one tool_use block, array or assistant message per line`);
      }
    }
  }
  const blocks: ToolUseBlock[] = [];
  for (const { value, where } of entries) blocks.push(...blocksOf(value, where));
  if (blocks.length === 0) throw new ExecInputError('no tool_use blocks in the input');
  const seen = new Set<string>();
  blocks.forEach((block, i) => {
    if (block.id === undefined) (block as { id: string }).id = `toolu_exec_${i + 1}`;
    if (seen.has(block.id)) throw new ExecInputError(`duplicate tool_use id "${block.id}": each call needs its own id`);
    seen.add(block.id);
  });
  return blocks;
}

function blocksOf(value: unknown, where: string): ToolUseBlock[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => blocksOf(v, `${where}, entry ${i + 1}`));
  if (value === null || typeof value !== 'object') throw new ExecInputError(`${where} is not a tool_use block, an array of them or an assistant message`);
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.content) && (record.role === 'assistant' || record.type === 'message')) {
    return record.content.filter((b) => isToolUse(b)).map((b) => ({ ...(b as object), type: 'tool_use' }) as ToolUseBlock);
  }
  if (isToolUse(record)) {
    if (record.id !== undefined && typeof record.id !== 'string') throw new ExecInputError(`${where}: "id" must be a string`);
    return [{ ...record, type: 'tool_use' } as ToolUseBlock];
  }
  if (record.type !== undefined) return []; // text, thinking… blocks of a message: not ours to run
  throw new ExecInputError(`${where} is not a tool_use block (it needs "type": "tool_use" and a "name")`);
}

function isToolUse(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return r.type === 'tool_use' || (r.type === undefined && 'name' in r && 'input' in r);
}

const STAGE_WORDS: Record<ToolUseOutcome['stage'], string> = {
  lookup: 'unknown tool',
  abort: 'not started (cancelled)',
  validation: 'invalid input',
  hook: 'stopped by a hook',
  permission: 'denied',
  call: 'the tool threw',
  budget: 'output could not be stored',
  completed: 'the tool reported an error',
  executor: 'cancelled',
};

/** For a person: each result with its status, then what came with it, then a one-line summary. */
export function formatReadable(outcomes: readonly ToolUseOutcome[]): string {
  const out: string[] = [];
  outcomes.forEach((o, i) => {
    const status = o.isError ? '✗' : '✓';
    const where = o.persistedPath ? `  (full output: ${o.persistedPath})` : '';
    out.push(`${status} [${i + 1}] ${o.toolName} ${o.toolUseId}${o.isError ? `  — ${STAGE_WORDS[o.stage]}` : ''}${where}`);
    out.push(indent(contentText(o.result.content)));
    for (const m of o.newMessages) out.push(indent(`+ ${messageText(m)}`));
    for (const n of o.userNotices) out.push(indent(`! ${n}`));
    out.push('');
  });
  const errors = outcomes.filter((o) => o.isError).length;
  out.push(`${outcomes.length} tool call${outcomes.length === 1 ? '' : 's'}: ${outcomes.length - errors} ok, ${errors} error${errors === 1 ? '' : 's'}`);
  return `${out.join('\n')}\n`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content.length > 0 ? content : '(empty)';
  if (!Array.isArray(content)) return '(no content)';
  return (content as { type: string; text?: string; source?: { media_type?: string; data?: string } }[])
    .map((b) =>
      b.type === 'text' ? (b.text ?? '') : b.type === 'image' ? `[image ${b.source?.media_type ?? ''}, ${b.source?.data?.length ?? 0} base64 chars]` : `[${b.type}]`,
    )
    .join('\n');
}

function messageText(message: MessageParam): string {
  return contentText(message.content).replace(/<\/?system-reminder>\n?/g, '').trim();
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

async function readInputFile(file: string): Promise<string> {
  try {
    return await readFile(path.resolve(file), 'utf8');
  } catch (error) {
    throw new ExecInputError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new ExecInputError('no input file given and stdin is a terminal: pass FILE or pipe JSON into "toolgate exec -"');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
