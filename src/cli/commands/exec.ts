/**
 * `toolgate exec [FILE|-]`: tool_use blocks in, the user message of tool_result blocks out, through the full pipeline
 * (settings, hooks, permission engine, StreamingToolExecutor). Input: an assistant message, an array of blocks, one
 * block, or JSON Lines of any of those. Headless: whatever would prompt is denied, naming the rule that would allow it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { createToolRuntime } from '../../agent/create-tool-runtime.js';
import { backendFromSpec } from '../../distributed/backend-spec.js';
import { SettingsLoadError } from '../../agent/runtime-settings.js';
import type { RunResult, ToolRuntime } from '../../agent/types.js';
import type { ToolUseOutcome } from '../../execution/outcome.js';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import type { MessageParam, ToolUseBlock } from '../../tool/tool.js';
import { guardSignals } from '../signals.js';
import { writeStdout } from '../stdout.js';
import { inlineJsonOrPath } from '../../tool/read-config-file.js';

interface ExecOptions {
  cwd: string;
  settings: string[];
  mode?: string;
  json?: boolean;
  sessionDir?: string;
  allow: string[];
  deny: string[];
  ask: string[];
  backend?: string;
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
    .option('--session-dir <dir>', 'where persisted outputs go (default: ~/.local/state/toolgate/sessions/<id>, or under $XDG_STATE_HOME)')
    .option('--json', 'print the user message as JSON')
    .option('--backend <spec>', 'where call() runs: local (default) or restate=URL (see docs/distributed.md)')
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
  const remote = await backendFromSpec(opts.backend);

  const controller = new AbortController();
  const signals = guardSignals(controller, {
    onForcedExit: (signal) => writeSafely('stderr', `toolgate exec: ${signal} again, exiting without cleaning up\n`),
  });
  let runtime: ToolRuntime | undefined;
  try {
    try {
      runtime = await createToolRuntime({
        backend: remote.backend,
        cwd,
        settings: {
          // Relative to where the command was typed, like any other path argument (not to --cwd).
          files: opts.settings.map((f) => inlineJsonOrPath(f, process.cwd())),
        },
        mode: opts.mode as PermissionMode | undefined,
        rules: { allow: opts.allow, deny: opts.deny, ask: opts.ask },
        // One shot: only the built-ins the blocks name are offered, so only their modules load.
        builtinTools: [...new Set(blocks.map((b) => b.name))],
        ...(opts.sessionDir !== undefined ? { sessionDir: path.resolve(opts.sessionDir) } : {}),
        sessionId: `exec-${Date.now().toString(36)}-${process.pid}`,
        signal: controller.signal,
      });
    } catch (error) {
      if (error instanceof SettingsLoadError) throw new ExecInputError(error.message);
      throw error;
    }
    for (const warning of runtime.warnings) writeSafely('stderr', `toolgate: warning: ${warning}\n`);

    // As if streamed: each block is handed over when it "arrives"; tools that may start, start at once.
    const handle = runtime.begin({ role: 'assistant', content: blocks });
    const events = handle.events();
    const first = events.next();
    for (const block of blocks) {
      handle.add(block);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    handle.finish();
    let result: RunResult | undefined;
    for (let e = await first; !e.done; e = await events.next()) if (e.value.type === 'done') result = e.value.result;
    if (!result) throw new Error('the run ended without answering every call');

    // One shot: nothing may outlive the command. Background tasks still running are ended (by the runtime's
    // disposal) and reported.
    const running = new Set(runtime.tasks().filter((t) => t.status === 'running').map((t) => t.id));
    if (running.size > 0) await runtime.dispose();
    for (const task of runtime.tasks().filter((t) => running.has(t.id))) {
      writeSafely('stderr', `toolgate exec: background task ${task.id} (${task.label}) was still running and has been stopped; its output is in ${task.outputFile}\n`);
    }
    writeSafely('stdout', opts.json ? `${JSON.stringify(result.message, null, 2)}\n` : formatReadable(result.outcomes));
  } finally {
    await runtime?.dispose();
    await remote.close();
    signals.dispose();
    if (signals.exitCode !== undefined) process.exitCode = signals.exitCode;
  }
}

/**
 * A closed terminal (SIGHUP) or a closed pipe must not turn the last writes into a crash. The answer goes to fd 1
 * directly and stderr's stream is made only for a message (src/cli/stdout.ts: a stream made for a pipe is a net.Socket,
 * loaded at every start otherwise).
 */
function writeSafely(to: 'stdout' | 'stderr', text: string): void {
  try {
    if (to === 'stdout') {
      writeStdout(text);
      return;
    }
    if (process.stderr.listenerCount('error') === 0) process.stderr.on('error', () => {});
    process.stderr.write(text);
  } catch {
    // the reader is gone (closed terminal or pipe): nothing left to tell
  }
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
