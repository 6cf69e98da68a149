/**
 * `toolgate` (no arguments) or `toolgate run` on a terminal without `-p` and without a prompt: the interactive
 * session of `src/ui/`, over the same runtime and loop as `run -p`. Loaded only then (Ink and React are not small).
 */
import path from 'node:path';
import type { PermissionMode } from '../../tool/permission-types.js';
import type { RunOptions } from './run.js';

export async function runInteractive(opts: RunOptions): Promise<number> {
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
  const sessionId = crypto.randomUUID();
  const client = new Anthropic({ ...(apiKey ? { apiKey, authToken: null } : { authToken, apiKey: null }), maxRetries: 0 });
  const model = opts.model ?? agent.DEFAULT_MODEL;
  const maxTurns = opts.maxTurns === undefined ? undefined : Number(opts.maxTurns);
  return ui.startInteractiveSession({
    model,
    createRuntime: agent.createToolRuntime,
    runtimeOptions: {
      cwd,
      additionalDirectories: opts.addDir.map((d) => path.resolve(d)),
      settings: { files: opts.settings.map((f) => (f.trimStart().startsWith('{') ? f : path.resolve(f))) },
      mode: opts.permissionMode as PermissionMode | undefined,
      rules: { allow: opts.allowedTools, deny: opts.disallowedTools },
      sessionId,
      sessionDir: agent.defaultSessionDir(sessionId),
      client,
      services: { subagents: agent.createSubagentRunner({ client, query: agent.query }) },
    },
    runQuery: (runtime) => ({ prompt, model: turnModel, signal }) =>
      agent.query({
        runtime,
        client,
        prompt,
        model: turnModel,
        maxTurns,
        appendSystemPrompt: opts.appendSystemPrompt,
        systemPrompt: opts.systemPrompt,
        signal,
      }),
  });
}
