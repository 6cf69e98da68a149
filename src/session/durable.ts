/**
 * A session on the durable backend: its loop runs on toolgate workers behind a Restate ingress (`toolgate worker
 * --sessions`, docs/distributed.md), each user message one durable run of the session's virtual object, which keeps
 * the conversation. A run's events come back with its answer, plain JSON, and the face shows them as a local run's
 * (the same encoder): `toolgate -p --backend restate=URL` prints what a local run prints, and an Agent SDK program
 * gets the same messages. Only the serializable part of the session travels (`DurableSessionOptions`); what would have
 * to call back into this process is refused here, by name, rather than dropped.
 */
import path from 'node:path';
import type { DurableSessionOptions } from '../distributed/durable-session.js';
import { runDurableSession } from '../distributed/session-client.js';
import { randomUUID } from '../tool/crypto.js';
import type { SessionInput } from './input.js';
import { SessionOptionError, type SessionEvent, type SessionOptions } from './options.js';
import type { SessionParts } from './setup.js';

/** What the durable backend cannot take: each would have to run in this process, next to the session's loop. */
const REFUSED: readonly [keyof SessionOptions, string][] = [
  ['onPermissionRequest', 'a permission handler cannot answer from the workers (the session is headless there: name the rules, or a mode)'],
  ['permissionPromptTool', 'a permission prompt tool cannot answer from the workers'],
  ['onQuestion', 'questions cannot be asked from the workers'],
  ['hooks', 'in-process hook callbacks cannot run on the workers (hooks of the workspace\'s settings files do)'],
  ['mcpServers', 'the session\'s MCP servers run in this process, not on the workers'],
  ['agents', 'the session\'s own agent types do not travel to the workers'],
  ['agent', 'the main agent does not travel to the workers'],
  ['plugins', 'plugin folders of this machine do not travel to the workers'],
  ['outputSchema', 'structured output is not available on the workers'],
  ['settingsFiles', 'settings files of this machine do not travel (the workers read the workspace\'s)'],
  ['settings', 'a settings object does not travel (the workers read the workspace\'s settings files)'],
  ['streamEvents', 'partial messages are not available: a durable run\'s events come with its answer'],
  ['continue', 'continue the durable session by its id (resume)'],
  ['fork', 'a durable session cannot be forked'],
];

/** The part of `options` that runs on the workers; throws `SessionOptionError` for what cannot go there. */
export function durableOptions(options: SessionOptions): DurableSessionOptions {
  for (const [key, why] of REFUSED) {
    const value = options[key];
    if (value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && value !== null && Object.keys(value).length === 0)) {
      throw new SessionOptionError(`${key} with the durable backend: ${why}`);
    }
  }
  return {
    cwd: path.resolve(options.cwd ?? process.cwd()),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.maxBudgetUsd !== undefined ? { maxBudgetUsd: options.maxBudgetUsd } : {}),
    ...(options.fallbackModel !== undefined ? { fallbackModel: options.fallbackModel } : {}),
    ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    ...(options.allowedTools ? { allow: options.allowedTools } : {}),
    ...(options.disallowedTools ? { deny: options.disallowedTools } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.additionalDirectories ? { additionalDirectories: options.additionalDirectories.map((d) => path.resolve(d)) } : {}),
    // The workers read the workspace's settings, never those of the account they run under.
    ...(options.settingSources ? { settingSources: options.settingSources.filter((s): s is 'project' | 'local' => s !== 'user') } : {}),
    ...(options.betas && options.betas.length > 0 ? { betas: options.betas } : {}),
  };
}

/** One durable session, seen from the process that sends it messages. */
export class DurableRun {
  readonly sessionId: string;
  readonly #options: DurableSessionOptions;
  /** What the last run said about the session (the init message's agents). */
  agents: readonly string[] = [];
  model: string | undefined;

  constructor(
    private readonly url: string,
    session: SessionOptions,
    private readonly accepted: (sessionId: string) => void,
  ) {
    this.#options = durableOptions(session);
    this.sessionId = session.resume ?? session.sessionId ?? randomUUID();
    this.model = session.model;
  }

  /** Each message of `input` is one durable run; its events, as they came back with its answer. */
  async *events(input: SessionInput, signal: AbortSignal): AsyncGenerator<SessionEvent, void> {
    let told = false;
    input.restart();
    for (let message = await input.next(); message !== undefined && !signal.aborted; message = await input.next()) {
      const result = await runDurableSession({
        ...this.#options,
        ...(this.model !== undefined ? { model: this.model } : {}),
        ingressUrl: this.url,
        resume: this.sessionId,
        prompt: message.content,
        signal,
        onAccepted: (id) => {
          if (!told) this.accepted(id);
          told = true;
        },
      });
      this.agents = result.agents ?? [];
      for (const event of result.events ?? []) yield event;
    }
  }
}

/** What the faces read of a durable session: no runtime or client in this process; reading either says why. */
export function durableParts(options: SessionOptions, env: SessionParts['env']): SessionParts {
  const elsewhere = (): never => {
    throw new SessionOptionError('not available with the durable backend: the session runs on the workers');
  };
  return {
    env,
    model: options.model ?? '',
    apiKeySource: env.ANTHROPIC_API_KEY?.trim() ? 'ANTHROPIC_API_KEY' : 'none',
    get runtime() {
      return elsewhere();
    },
    get client() {
      return elsewhere();
    },
  };
}
