/**
 * `toolgate` (no arguments) or `toolgate run` on a terminal without `-p` and without a prompt: the interactive
 * session of `src/ui/`, over the same runtime and loop as `run -p`. Loaded only then (Ink and React are not small).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { resolveModel } from '../../tool/models.js';
import type { PermissionMode } from '../../tool/permission-types.js';
import type { MessageParam } from '../../tool/tool.js';
import { guardSignals } from '../signals.js';
import { RunUsageError, startMcp, type RunOptions } from './run.js';

export async function runInteractive(opts: RunOptions, prompt = ''): Promise<number> {
  // `--resume` without an id: the session opens on its /resume picker of this folder's sessions, as claude's does.
  if (opts.resume === true) {
    opts = { ...opts, resume: undefined };
    prompt = '/resume';
  }
  const apiKey = process.env.ANTHROPIC_API_KEY?.trim();
  const authToken = process.env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (!apiKey && !authToken) {
    process.stderr.write('toolgate: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL for another endpoint)\n');
    return 1;
  }
  const [{ default: Anthropic }, agent, ui] = await Promise.all([
    import('@anthropic-ai/sdk'),
    import('../../agent/index.js'),
    import('../../ui/start-session.js'),
  ]);
  const cwd = path.resolve(opts.cwd);
  // --continue / --resume: this session goes on in that session's folder, from its transcript.
  let sessionId: string = crypto.randomUUID();
  let continued: MessageParam[] | undefined;
  if (opts.continue || opts.resume) {
    const id = opts.continue ? agent.latestSessionFor(path.join(agent.stateDirectory(), 'sessions'), cwd) : (opts.resume as string);
    if (!id) throw new RunUsageError(`no session to continue in ${cwd} (start one without --continue)`);
    const file = agent.transcriptPath(agent.defaultSessionDir(id));
    if (!existsSync(file)) throw new RunUsageError(`no transcript for session ${id} at ${file}`);
    sessionId = id;
    continued = agent.readTranscript(file).messages;
  }
  const client = new Anthropic({ ...(apiKey ? { apiKey, authToken: null } : { authToken, apiKey: null }), maxRetries: 0 });
  const model = resolveModel(opts.model);
  const maxTurns = opts.maxTurns === undefined ? undefined : Number(opts.maxTurns);
  // Warnings of MCP servers go to the session once it is drawn; until then they wait.
  const early: string[] = [];
  let warn: (text: string) => void = (text) => void early.push(text);
  const mcp = await startMcp(cwd, opts, (text) => warn(text));
  const bindNotices = (notice: (text: string) => void) => {
    warn = notice;
    for (const text of early.splice(0)) notice(text);
  };
  // SIGTERM, SIGHUP (a closed terminal), SIGINT from outside: the turn is interrupted, its tools answered and the
  // transcript written, the runtime disposed (no process left), then 128 + n.
  const controller = new AbortController();
  const stopSignals = guardSignals(controller, { onForcedExit: (signal) => process.stderr.write(`toolgate: ${signal} again, exiting now\n`) });
  try {
    const code = await startSession(ui, agent, opts, { cwd, sessionId, client, model, maxTurns, continued, prompt, signal: controller.signal, mcp: mcp && { manager: mcp.manager, bindNotices } });
    return stopSignals.exitCode ?? code;
  } finally {
    stopSignals.dispose();
  }
}

interface SessionSetup {
  readonly cwd: string;
  readonly sessionId: string;
  readonly client: InstanceType<typeof import('@anthropic-ai/sdk').default>;
  readonly model: string;
  readonly maxTurns: number | undefined;
  readonly continued: MessageParam[] | undefined;
  /** Sent as the session's first message (`toolgate "PROMPT"`); empty: none. */
  readonly prompt: string;
  readonly signal: AbortSignal;
  readonly mcp: { readonly manager: import('../../mcp/manager.js').McpClientManager; readonly bindNotices: (notice: (text: string) => void) => void } | undefined;
}

function startSession(
  ui: typeof import('../../ui/start-session.js'),
  agent: typeof import('../../agent/index.js'),
  opts: RunOptions,
  { cwd, sessionId, client, model, maxTurns, continued, prompt: initialPrompt, signal, mcp }: SessionSetup,
): Promise<number> {
  return ui.startInteractiveSession({
    model,
    signal,
    ...(initialPrompt ? { initialPrompt } : {}),
    ...(continued ? { continued } : {}),
    ...(mcp ? { mcp: { control: mcp.manager, bindNotices: mcp.bindNotices } } : {}),
    createRuntime: agent.createToolRuntime,
    runtimeOptions: {
      cwd,
      additionalDirectories: opts.addDir.map((d) => path.resolve(d)),
      settings: { files: opts.settings.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))) },
      mode: opts.permissionMode as PermissionMode | undefined,
      ...(opts.allowDangerouslySkipPermissions === true ? { allowDangerouslySkipPermissions: true } : {}),
      rules: { allow: opts.allowedTools, deny: opts.disallowedTools },
      sessionId,
      sessionDir: agent.defaultSessionDir(sessionId),
      sessionStart: opts.continue ? 'continue' : opts.resume ? 'resume' : 'fresh',
      client,
      ...(mcp ? { services: { mcpResources: mcp.manager.resourceService }, toolProviders: [mcp.manager.toolProvider()] } : {}),
    },
    compact: (runtime) => ({ messages, model: turnModel, instructions, signal: turnSignal }) =>
      agent.compactConversation({ runtime, client, messages, model: turnModel, signal: turnSignal, trigger: 'manual', ...(instructions ? { instructions } : {}), ...(opts.systemPrompt ? { systemPrompt: opts.systemPrompt } : {}) }),
    runQuery: (runtime) => ({ prompt, model: turnModel, signal: turnSignal, resume }) =>
      agent.query({
        runtime,
        client,
        prompt,
        resume,
        model: turnModel,
        maxTurns,
        appendSystemPrompt: opts.appendSystemPrompt,
        systemPrompt: opts.systemPrompt,
        signal: turnSignal,
      }),
  });
}
