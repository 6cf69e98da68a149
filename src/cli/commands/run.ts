/**
 * `toolgate run [-p] "PROMPT"`: the agent loop from the shell, with the flags people already use with `claude -p`.
 * The prompt comes from the arguments or stdin; the model from the Messages API (`ANTHROPIC_API_KEY` or
 * `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`). Headless: anything that would need a person is denied, with the rule
 * that would allow it. Without `-p` on a terminal this is where the interactive UI plugs in (`runInteractive`).
 *
 * The agent layer is loaded only when a prompt actually runs, so `toolgate run --help` stays cheap.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { resolveModel } from '../../tool/models.js';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import { guardSignals } from '../signals.js';
import { readPrompt } from './prompt-input.js';
import { withRetryNotices } from './retry-notices.js';
import { writeOutput, type OutputFormat } from './run-output.js';

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
  resume?: string;
  backend?: string;
  mcpConfig: string[];
  strictMcpConfig?: boolean;
  permissionPromptTool?: string;
  dangerouslySkipPermissions?: boolean;
  allowDangerouslySkipPermissions?: boolean;
  verbose?: boolean;
  debug?: string | boolean;
}

export class RunUsageError extends Error {
  override readonly name = 'RunUsageError';
}

const collect = (value: string, previous: string[]) => [...previous, value];
/** `--allowedTools "Read,Bash(git *)" Edit`: commas and spaces separate rules, except inside parentheses. */
const collectRules = (value: string, previous: string[]) => [...previous, ...splitRules(value)];
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
    .option('-r, --resume <session-id>', 'resume a session by id')
    .option('--backend <spec>', 'local (default) or restate=URL: the session runs durably on toolgate workers (docs/distributed.md)')
    .option('--mcp-config <file-or-json...>', 'MCP servers from a file or inline JSON ({"mcpServers": {…}}), beside .mcp.json and settings', collect, [])
    .option('--strict-mcp-config', 'only the MCP servers of --mcp-config')
    .option('--permission-prompt-tool <mcp-tool>', 'an MCP tool (mcp__server__tool) that answers permission prompts in headless runs')
    .option('--dangerously-skip-permissions', 'start in bypassPermissions mode (refused as root unless IS_SANDBOX=1)')
    .option('--verbose', 'tool results drawn in full in the session (claude requires it for -p stream-json; accepted there, nothing changes)')
    .option('-d, --debug [filter]', 'accepted for claude compatibility; toolgate has no debug log (says so on stderr)')
    .option('--allow-dangerously-skip-permissions', 'let Shift+Tab reach bypassPermissions without starting in it (refused as root unless IS_SANDBOX=1)')
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
  if (opts.permissionMode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(opts.permissionMode)) {
    throw new RunUsageError(`unknown --permission-mode "${opts.permissionMode}" (expected one of: ${PERMISSION_MODES.join(', ')})`);
  }
  const maxTurns = opts.maxTurns === undefined ? undefined : Number(opts.maxTurns);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) throw new RunUsageError(`--max-turns must be a positive integer (got "${opts.maxTurns}")`);
  if (opts.continue && opts.resume) throw new RunUsageError('--continue and --resume cannot be used together');
  if (opts.permissionPromptTool !== undefined && !/^mcp__[^_].*__./.test(opts.permissionPromptTool)) {
    throw new RunUsageError(`--permission-prompt-tool must name an MCP tool (mcp__server__tool), not "${opts.permissionPromptTool}"`);
  }

  // A --settings or --mcp-config that is not there, or bypass as root: one line, exit 1 (and a result for scripts).
  const { preflight, earlyErrorResult } = await import('./run-preflight.js');
  const problem = preflight(opts);
  if (problem !== undefined) {
    process.stderr.write(`toolgate: ${problem}\n`);
    if (format !== 'text') process.stdout.write(`${JSON.stringify(earlyErrorResult(problem))}\n`);
    return 1;
  }

  if (opts.debug !== undefined) process.stderr.write('toolgate: --debug is accepted for compatibility with claude; toolgate writes no debug log\n');

  const interactive = !opts.print && process.stdin.isTTY === true && process.stdout.isTTY === true;
  // On a terminal, the session (with the prompt, if any, sent as its first message); else the prompt and piped stdin.
  if (interactive) return runInteractive(opts, words.join(' ').trim());
  const prompt = await readPrompt(words);
  if (!prompt) throw new RunUsageError('no prompt: give it as an argument or on stdin');
  if (opts.backend !== undefined && opts.backend !== 'local') return runOnRestate(prompt, opts, format, maxTurns);

  const apiKey = process.env.ANTHROPIC_API_KEY?.trim();
  const authToken = process.env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (!apiKey && !authToken) {
    process.stderr.write('toolgate run: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL for another endpoint)\n');
    return 1;
  }

  // Loaded here, not at the top: the SDK, the runtime and the tools are most of the CLI's start-up time.
  const [{ default: Anthropic }, agent] = await Promise.all([import('@anthropic-ai/sdk'), import('../../agent/index.js')]);
  const cwd = path.resolve(opts.cwd);
  const sessionsRoot = path.join(agent.stateDirectory(), 'sessions');
  let sessionId: string;
  let resume: string | undefined;
  if (opts.continue) {
    resume = agent.latestSessionFor(sessionsRoot, cwd);
    if (!resume) throw new RunUsageError(`no session to continue in ${cwd} (start one without --continue)`);
    sessionId = resume;
  } else if (opts.resume) {
    resume = opts.resume;
    sessionId = resume;
  } else {
    sessionId = crypto.randomUUID();
  }

  const client = new Anthropic({ ...(apiKey ? { apiKey, authToken: null } : { authToken, apiKey: null }), maxRetries: 0 });
  const controller = new AbortController();
  // SIGINT, SIGTERM, SIGHUP: tools get their results, process groups end, the transcript stays valid.
  const stopSignals = guardSignals(controller, { onForcedExit: (signal) => process.stderr.write(`toolgate run: ${signal} again, exiting now\n`) });
  const model = resolveModel(opts.model);
  const mcp = await startMcp(cwd, opts);
  const runtime = await agent.createToolRuntime({
    cwd,
    additionalDirectories: opts.addDir.map((d) => path.resolve(d)),
    settings: { files: opts.settings.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))) },
    mode: opts.permissionMode as PermissionMode | undefined,
    ...(opts.allowDangerouslySkipPermissions === true ? { allowDangerouslySkipPermissions: true } : {}),
    rules: { allow: opts.allowedTools, deny: opts.disallowedTools },
    sessionId,
    sessionDir: agent.defaultSessionDir(sessionId),
    model,
    sessionStart: opts.continue ? 'continue' : opts.resume ? 'resume' : 'fresh',
    client,
    signal: controller.signal,
    ...(mcp ? { services: { mcpResources: mcp.manager.resourceService } } : {}),
    ...(mcp ? { toolProviders: [mcp.manager.toolProvider()] } : {}),
    ...(mcp?.onPermissionRequest ? { onPermissionRequest: mcp.onPermissionRequest } : {}),
  });
  try {
    // `/name args`: a custom command or skill becomes the prompt (its `!` lines run headless: asks are denied).
    let expansion: Awaited<ReturnType<typeof agent.expandSlashCommand>>;
    try {
      expansion = prompt.startsWith('/') ? await agent.expandSlashCommand(runtime, prompt, { signal: controller.signal }) : undefined;
    } catch (error) {
      if (!(error instanceof agent.SlashCommandError)) throw error;
      process.stderr.write(`toolgate run: ${error.message}\n`);
      return 1;
    }
    // Reads every skill's and command's frontmatter (the Skill tool's description needs it anyway): warnings now.
    await agent.listSlashCommands(runtime);
    for (const warning of runtime.warnings) process.stderr.write(`toolgate: warning: ${warning}\n`);
    const events = agent.query({
      runtime,
      client,
      prompt: expansion ? [expansion.message] : prompt,
      model: expansion?.model ?? model,
      maxTurns,
      appendSystemPrompt: opts.appendSystemPrompt,
      systemPrompt: opts.systemPrompt,
      signal: controller.signal,
      resume,
    });
    const result = await writeOutput(format === 'text' ? withRetryNotices(events) : events, format, process.stdout, { permissionMode: runtime.permissionContext.mode });
    if (result.stopReason === 'aborted') return stopSignals.exitCode ?? 130;
    if (result.isError) {
      if (format === 'text') process.stderr.write(`toolgate run: ${describeFailure(result)}\n`);
      return 1;
    }
    return 0;
  } finally {
    stopSignals.dispose();
    await runtime.dispose();
  }
}

/** The terminal UI (`src/ui/`), loaded only for an interactive session; `prompt` (if not empty) is sent at once. */
async function runInteractive(opts: RunOptions, prompt: string): Promise<number> {
  const { runInteractive: start } = await import('./run-interactive.js');
  return start(opts, prompt);
}

/**
 * The MCP servers of this run: `--mcp-config`, `.mcp.json` and settings, as Claude Code reads them. Headless, so project
 * servers nobody approved stay stopped (said on stderr, with the setting that approves them).
 */
export async function startMcp(cwd: string, opts: RunOptions, warn: (text: string) => void = (text) => process.stderr.write(`toolgate: warning: ${text}\n`)) {
  const [{ loadMcpConfig }, { McpClientManager }, { createPermissionPromptTool }] = await Promise.all([
    import('../../mcp/load-config.js'),
    import('../../mcp/manager.js'),
    import('../../mcp/permission-prompt-tool.js'),
  ]);
  const config = loadMcpConfig({
    cwd,
    mcpConfigs: opts.mcpConfig.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))),
    strict: opts.strictMcpConfig === true,
    flagSettings: opts.settings.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))),
  });
  for (const p of config.problems) process.stderr.write(`toolgate: warning: MCP config ${p.file}${p.server ? ` (server "${p.server}")` : ''}: ${p.message}\n`);
  const pending = [...config.servers.values()].filter((s) => s.approval === 'pending').map((s) => s.name);
  if (pending.length > 0) {
    process.stderr.write(`toolgate: warning: MCP servers of .mcp.json not approved, not started: ${pending.join(', ')} (approve with "enabledMcpjsonServers" in .claude/settings.local.json)\n`);
  }
  if (config.servers.size === 0) {
    if (opts.permissionPromptTool) throw new RunUsageError(`--permission-prompt-tool ${opts.permissionPromptTool}: no MCP server is configured`);
    return undefined;
  }
  const manager = new McpClientManager({
    cwd,
    servers: config.servers,
    onServerEvent: (e) => {
      if (e.type === 'failed') warn(e.error.split('\n')[0]!);
    },
  });
  return { manager, onPermissionRequest: opts.permissionPromptTool ? createPermissionPromptTool(manager, opts.permissionPromptTool) : undefined };
}

function describeFailure(result: { stopReason: string; error?: string; turns: number }): string {
  if (result.stopReason === 'max_turns') return `stopped after ${result.turns} turns (--max-turns)`;
  return result.error ?? `stopped: ${result.stopReason}`;
}

export function splitRules(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || ch === ' ')) {
      if (current.trim()) out.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** `--backend restate=URL`: the loop runs on the workers as a durable session; this process waits for its answer. */
async function runOnRestate(prompt: string, opts: RunOptions, format: OutputFormat, maxTurns: number | undefined): Promise<number> {
  const { parseBackendSpec } = await import('../../distributed/backend-spec.js');
  const { runDurableSession } = await import('../../distributed/session-client.js');
  const spec = parseBackendSpec(opts.backend ?? 'local');
  if (spec.kind !== 'restate') throw new RunUsageError(`unknown --backend "${opts.backend}"`);
  if (opts.continue) throw new RunUsageError('--continue is not available with --backend restate=URL: use --resume ID');
  const result = await runDurableSession({
    ingressUrl: spec.url,
    resume: opts.resume,
    prompt,
    cwd: path.resolve(opts.cwd),
    model: opts.model,
    maxTurns,
    systemPrompt: opts.systemPrompt,
    mode: opts.permissionMode as PermissionMode | undefined,
    allow: opts.allowedTools,
    deny: opts.disallowedTools,
    onAccepted: (sessionId) => process.stderr.write(`toolgate run: session ${sessionId} (after a crash: toolgate run --resume ${sessionId} --backend ${opts.backend} with the same prompt)\n`),
  });
  process.stdout.write(format === 'text' ? `${result.text}\n` : `${JSON.stringify({ type: 'result', ...result })}\n`);
  return result.stopReason === 'end_turn' || result.stopReason === 'stop_sequence' ? 0 : 1;
}
