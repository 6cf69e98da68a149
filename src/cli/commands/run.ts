/**
 * `toolgate run [-p] "PROMPT"`: the agent loop from the shell, with the flags people already use with `claude -p`.
 * The prompt comes from the arguments or stdin; the model from the Messages API (`ANTHROPIC_API_KEY` or
 * `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`). Headless: anything that would need a person is denied, with the rule
 * that would allow it. Without `-p` on a terminal this is where the interactive UI plugs in (`runInteractive`).
 *
 * The agent layer is loaded only when a prompt actually runs, so `toolgate run --help` stays cheap.
 */
import type { Command } from 'commander';
import { PERMISSION_MODES } from '../../tool/permission-types.js';
import { splitRuleList } from '../../permissions/permission-rule.js';
import type { OutputFormat } from './run-print.js';

export interface RunOptions {
  print?: boolean;
  outputFormat: string;
  model?: string;
  maxTurns?: string;
  permissionMode?: string;
  settings: string[];
  allowedTools: string[];
  disallowedTools: string[];
  addDir: string[];
  appendSystemPrompt?: string;
  systemPrompt?: string;
  cwd: string;
  continue?: boolean;
  /** `--resume ID`; `true` for `--resume` alone (a picker on a terminal, the newest session headless). */
  resume?: string | true;
  backend?: string;
  mcpConfig: string[];
  strictMcpConfig?: boolean;
  pluginDir: string[];
  permissionPromptTool?: string;
  dangerouslySkipPermissions?: boolean;
  allowDangerouslySkipPermissions?: boolean;
  verbose?: boolean;
  debug?: string | boolean;
  inputFormat?: string;
  includePartialMessages?: boolean;
  replayUserMessages?: boolean;
  includeHookEvents?: boolean;
  forwardSubagentText?: boolean;
  tools?: string[];
  jsonSchema?: string;
  maxBudgetUsd?: string;
  fallbackModel?: string;
  sessionId?: string;
  forkSession?: boolean;
  /** `--resume-session-at MSG`: the resumed conversation cut after that message (under a new id). */
  resumeSessionAt?: string;
  /** `--checkpoints` / `--no-checkpoints`: file checkpoints before each user message (docs/checkpoints.md); unset: on in
   * the terminal session, off with -p. */
  checkpoints?: boolean;
  /** `--no-session-persistence` makes it false. */
  sessionPersistence?: boolean;
  settingSources?: string;
  systemPromptFile?: string;
  appendSystemPromptFile?: string;
  agents?: string;
  agent?: string;
  betas: string[];
  effort?: string;
  permissionPrompts?: string;
}

export class RunUsageError extends Error {
  override readonly name = 'RunUsageError';
}

const collect = (value: string, previous: string[]) => [...previous, value];
/** Values kept as given (`--tools ""` is a value: no tools). */
const collectRaw = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
/** `--allowedTools "Read,Bash(git *)" Edit`: commas and spaces separate rules, except inside parentheses. */
const collectRules = (value: string, previous: string[]) => [...previous, ...splitRuleList(value)];
const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('the agent: on a terminal the interactive session (the prompt, if given, sent); with -p or a pipe, the answer printed (prompt from the arguments, stdin, or both)')
    .argument('[prompt...]', 'the prompt (headless: stdin too — the prompt, a newline, then stdin)')
    .option('-p, --print', 'print the result and exit (headless; the default when stdin or stdout is not a terminal)')
    .option('--output-format <format>', `output format: ${OUTPUT_FORMATS.join(', ')}`, 'text')
    .option('--model <model>', 'the model: an alias (sonnet, opus, haiku, fable) or a full id (default: $ANTHROPIC_MODEL, else opus)')
    .option('--max-turns <n>', 'stop after this many model turns')
    .option('--permission-mode <mode>', `permission mode: ${[...PERMISSION_MODES.filter((m) => m !== 'bubble'), 'manual (= default)'].join(', ')}`)
    .option('--settings <file-or-json>', 'extra settings file or inline JSON (repeatable, later wins)', collect, [])
    .option('--allowedTools, --allowed-tools <rules...>', 'allow rules for this run, e.g. "Bash(git diff:*)" Read', collectRules, [])
    .option('--disallowedTools, --disallowed-tools <rules...>', 'deny rules for this run', collectRules, [])
    .option('--add-dir <dirs...>', 'more working directories the tools may use', collectRules, [])
    .option('--append-system-prompt <text>', 'text added to the end of the system prompt')
    .option('--system-prompt <text>', "replace toolgate's system prompt")
    .option('--cwd <dir>', 'working directory (and project root for settings)', process.cwd())
    .option('-c, --continue', 'continue the most recent session in this directory')
    .option('-r, --resume [session-id]', 'resume a session by id; without one: a picker on a terminal, the newest session of this folder with -p')
    .option('--backend <spec>', 'with -p: local (default) or restate=URL: the session runs durably on toolgate workers and prints what a local run prints (docs/distributed.md)')
    .option('--mcp-config <file-or-json...>', 'MCP servers from a file or inline JSON ({"mcpServers": {…}}), beside .mcp.json and settings', collect, [])
    .option('--strict-mcp-config', 'only the MCP servers of --mcp-config')
    .option('--plugin-dir <dir>', 'load a plugin (Claude Code\'s plugin format) from this folder (repeatable)', collect, [])
    .option('--permission-prompt-tool <mcp-tool>', 'an MCP tool (mcp__server__tool) that answers permission prompts in headless runs')
    .option('--dangerously-skip-permissions', 'start in bypassPermissions mode (refused as root unless IS_SANDBOX=1)')
    .option('--verbose', 'tool results drawn in full in the session (claude requires it for -p stream-json; accepted there, nothing changes)')
    .option('-d, --debug [filter]', 'accepted for claude compatibility; toolgate has no debug log (says so on stderr)')
    .option('--allow-dangerously-skip-permissions', 'let Shift+Tab reach bypassPermissions without starting in it (refused as root unless IS_SANDBOX=1)')
    .option('--input-format <format>', 'with -p: text (default) or stream-json (user messages as JSON lines on stdin, each answered as it comes)')
    .option('--include-partial-messages', 'with -p --output-format stream-json: stream events as they arrive')
    .option('--replay-user-messages', 'with --input-format and --output-format stream-json: echo each user message from stdin')
    .option('--include-hook-events', 'with --output-format stream-json: every hook\'s started/response lines')
    .option('--forward-subagent-text', 'with --output-format stream-json: sub-agents\' text as assistant lines with parent_tool_use_id')
    .option('--tools <tools...>', 'built-in tools to offer: "" for none, "default" for all, or names ("Bash,Edit,Read")', collectRaw)
    .option('--json-schema <schema>', 'with -p: JSON Schema the final answer must match (structured output)')
    .option('--max-budget-usd <amount>', 'stop when the spend reaches this many dollars')
    .option('--fallback-model <models>', 'models to fall back to when the main one is overloaded or unavailable (comma-separated)')
    .option('--session-id <uuid>', 'the id of the new session (a UUID)')
    .option('--fork-session', 'with --resume or --continue: go on under a new session id')
    .option('--resume-session-at <message-id>', 'with --resume: go on from the conversation up to and including that message (its transcript id), under a new session id')
    .option('--checkpoints', 'record the files before each user message so they can be rewound (docs/checkpoints.md); on by default in the terminal session')
    .option('--no-checkpoints', 'the terminal session takes no file checkpoints (/rewind then rewinds only the conversation)')
    .option('--no-session-persistence', 'write no transcript (the session cannot be resumed)')
    .option('--setting-sources <sources>', 'which settings files to read: a comma-separated list of user, project, local')
    .option('--system-prompt-file <file>', "replace toolgate's system prompt with the file's text")
    .option('--append-system-prompt-file <file>', "the file's text added to the end of the system prompt")
    .option('--agents <json-or-file>', 'custom agents: a JSON object {"name": {"description", "prompt", "tools"?, "model"?}} or a file holding one')
    .option('--agent <name>', 'the agent (of --agents) this session runs as: its prompt, tools and model')
    .option('--betas <betas...>', 'beta headers sent with each API request', collectRules, [])
    .option('--effort <level>', 'accepted for claude compatibility (low, medium, high, xhigh, max); toolgate sends no effort level')
    .option('--permission-prompts <target>', 'with -p: who answers permission prompts: host (--permission-prompt-tool) or none (denied)')
    .action(async (words: string[], opts: RunOptions) => {
      process.exitCode = await runCommand(words, opts);
    });
}

/** Runs one prompt; returns the exit code. */
export async function runCommand(words: readonly string[], opts: RunOptions): Promise<number> {
  const format = opts.outputFormat as OutputFormat;
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    throw new RunUsageError(`unknown --output-format "${opts.outputFormat}" (expected one of: ${OUTPUT_FORMATS.join(', ')})`);
  }
  // claude's --help lists `manual`: the default mode under the name its menus use.
  if (opts.permissionMode === 'manual') opts.permissionMode = 'default';
  if (opts.dangerouslySkipPermissions === true) opts.permissionMode ??= 'bypassPermissions';
  // Checked before anything starts: a bad value is one line, exit 1 — under the JSON formats also a result object.
  const usage = usageProblem(opts);
  const { preflight, earlyErrorResult } = await import('./run-preflight.js');
  // A --settings or --mcp-config that is not there, or bypass as root: one line, exit 1 (and a result for scripts).
  const problem = usage ?? preflight(opts);
  if (problem !== undefined) {
    process.stderr.write(`toolgate: ${problem}\n`);
    if (format !== 'text') process.stdout.write(`${JSON.stringify(earlyErrorResult(problem))}\n`);
    return 1;
  }

  const interactive = !opts.print && process.stdin.isTTY === true && process.stdout.isTTY === true;
  // On a terminal, the session (with the prompt, if any, sent as its first message); else the prompt and piped stdin.
  if (interactive) return runInteractive(opts, words.join(' ').trim());
  const { runPrint } = await import('./run-print.js');
  return runPrint(words, opts, format);
}

/** The flags' own mistakes, in one line (`undefined`: none). */
function usageProblem(opts: RunOptions): string | undefined {
  if (opts.permissionMode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(opts.permissionMode)) {
    return `unknown --permission-mode "${opts.permissionMode}" (expected one of: ${PERMISSION_MODES.join(', ')})`;
  }
  const maxTurns = opts.maxTurns === undefined ? undefined : Number(opts.maxTurns);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) return `--max-turns must be a positive integer (got "${opts.maxTurns}")`;
  if (opts.continue && opts.resume !== undefined) return '--continue and --resume cannot be used together';
  if (opts.permissionPromptTool !== undefined && !/^mcp__[^_].*__./.test(opts.permissionPromptTool)) {
    return `--permission-prompt-tool must name an MCP tool (mcp__server__tool), not "${opts.permissionPromptTool}"`;
  }
  return undefined;
}

/** The terminal UI (`src/ui/`), loaded only for an interactive session; `prompt` (if not empty) is sent at once. */
async function runInteractive(opts: RunOptions, prompt: string): Promise<number> {
  const { runInteractive: start } = await import('./run-interactive.js');
  return start(opts, prompt);
}
