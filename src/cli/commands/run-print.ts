/**
 * `toolgate -p`: the headless run. Its flags are a session (run-flags.ts) driven by the Agent SDK face's encoding of
 * it (src/agent-sdk/session.ts), so `--output-format stream-json` prints exactly the Agent SDK's messages — the one
 * encoder's — one JSON object per line, as `claude -p --output-format stream-json --verbose` does; `json` prints the
 * result message alone; `text` prints the answer. With `--input-format stream-json` the prompt is a stream of user
 * messages, one JSON object per line on stdin, each answered as it comes (a result after each).
 */
import readline from 'node:readline';
import type { SDKMessage, SDKResultMessage, SDKUserMessage } from '../../agent-sdk/messages.js';
import { guardSignals } from '../signals.js';
import { readPrompt } from './prompt-input.js';
import { FlagError, runSessionOptions, type RunSession } from './run-flags.js';
import { earlyErrorResult } from './run-preflight.js';
import { retryNotice } from './retry-notices.js';
import type { RunOptions } from './run.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

interface Out {
  write(chunk: string): unknown;
}

/** Runs `toolgate -p`; returns the exit code. */
export async function runPrint(words: readonly string[], opts: RunOptions, format: OutputFormat, out: Out = process.stdout): Promise<number> {
  const fail = (message: string, sessionId?: string): number => {
    process.stderr.write(`toolgate: ${message}\n`);
    if (format !== 'text') out.write(`${JSON.stringify(earlyErrorResult(message, sessionId))}\n`);
    return 1;
  };
  let flags: RunSession;
  try {
    flags = runSessionOptions(opts, { print: true });
  } catch (error) {
    if (error instanceof FlagError) return fail(error.message);
    throw error;
  }
  for (const note of flags.notes) process.stderr.write(`toolgate: ${note}\n`);
  if (flags.replayUserMessages && flags.inputFormat !== 'stream-json') process.stderr.write('toolgate: --replay-user-messages has no effect without --input-format stream-json\n');

  let prompt: string | AsyncIterable<SDKUserMessage>;
  if (flags.inputFormat === 'stream-json') {
    if (words.join('').trim() !== '') return fail('--input-format stream-json reads the user messages from stdin; give no prompt argument');
    prompt = stdinMessages(process.stdin);
  } else {
    prompt = await readPrompt(words);
    if (!prompt) return fail('no prompt: give it as an argument or on stdin');
  }
  // On the durable backend the workers call the model, with their own credentials.
  if (!flags.session.backend && !process.env.ANTHROPIC_API_KEY?.trim() && !process.env.ANTHROPIC_AUTH_TOKEN?.trim()) {
    process.stderr.write('toolgate run: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL for another endpoint)\n');
    return 1;
  }

  // Loaded here, not at the top: the SDK, the runtime and the tools are most of the CLI's start-up time.
  const [{ AgentSession }, { AbortError }] = await Promise.all([import('../../agent-sdk/session.js'), import('../../agent-sdk/errors.js')]);
  // SIGINT, SIGTERM, SIGHUP: tools get their results, process groups end, the transcript stays valid.
  const controller = new AbortController();
  const stopSignals = guardSignals(controller, { onForcedExit: (signal) => process.stderr.write(`toolgate run: ${signal} again, exiting now\n`) });
  let last: SDKResultMessage | undefined;
  let sessionId: string | undefined;
  try {
    const agent = new AgentSession({
      prompt,
      session: {
        ...flags.session,
        warn: (text) => process.stderr.write(`toolgate: ${text}\n`),
        onDurableRun: (id) => process.stderr.write(`toolgate run: session ${id} (after a crash: toolgate run --resume ${id} --backend ${opts.backend} with the same prompt)\n`),
      },
      // The lines are claude -p's: what it prints beyond the Agent SDK's messages too.
      encoder: { ...flags.output, cliLines: true },
      replayUserMessages: flags.replayUserMessages,
      abortSignal: controller.signal,
      ...(format === 'text' ? { onLoopEvent: (e) => e.type === 'retry' && process.stderr.write(retryNotice(e)) } : {}),
    });
    await agent.ready();
    sessionId = agent.session.id;
    for await (const message of agent.messages()) {
      if (format === 'stream-json') out.write(`${JSON.stringify(message)}\n`);
      if (message.type !== 'result') continue;
      last = message;
      if (format === 'text') writeText(message, out);
    }
  } catch (error) {
    if (error instanceof AbortError || controller.signal.aborted) return stopSignals.exitCode ?? 130;
    if (error instanceof FlagError || isUsageError(error)) return fail(error.message, sessionId);
    return fail(error instanceof Error ? error.message : String(error), sessionId);
  } finally {
    stopSignals.dispose();
  }
  if (stopSignals.exitCode !== undefined) return stopSignals.exitCode;
  if (format === 'json' && last) out.write(`${JSON.stringify(jsonResult(last))}\n`);
  if (!last) return flags.inputFormat === 'stream-json' ? 0 : 1;
  return last.is_error ? 1 : 0;
}

/** `json` prints the result without what Claude Code's stream-json lines alone carry (usage since the last result). */
function jsonResult(result: SDKResultMessage): SDKResultMessage {
  const { model_usage_since_last_result: _since, begun_message_ids: _begun, ...rest } = result;
  return rest as SDKResultMessage;
}

function isUsageError(error: unknown): error is Error {
  return error instanceof Error && (error.name === 'AgentSdkOptionError' || error.name === 'SlashCommandError');
}

/** Text mode: the answer on stdout; an error result's reason on stderr. */
function writeText(result: SDKResultMessage, out: Out): void {
  if (result.subtype === 'success') {
    if (result.result) out.write(result.result.endsWith('\n') ? result.result : `${result.result}\n`);
    if (result.is_error) process.stderr.write(`toolgate run: ${result.result}\n`);
    return;
  }
  process.stderr.write(`toolgate run: ${result.errors.join('; ') || result.subtype}\n`);
}

/**
 * `--input-format stream-json`: each stdin line one JSON message, `{"type":"user","message":{"role":"user",
 * "content":…}}`. A line that is not JSON ends the input with an error (the session's error result says which);
 * control messages of claude's SDK protocol are not supported and are skipped, said once on stderr.
 */
async function* stdinMessages(stdin: NodeJS.ReadableStream): AsyncGenerator<SDKUserMessage> {
  const lines = readline.createInterface({ input: stdin, crlfDelay: Infinity });
  let n = 0;
  let toldControl = false;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new FlagError(`--input-format stream-json: stdin line ${n} is not JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      const type = (value as { type?: unknown } | null)?.type;
      if (type === 'control_request' || type === 'control_response' || type === 'keep_alive' || type === 'update_environment_variables') {
        if (!toldControl) process.stderr.write(`toolgate: --input-format stream-json: "${String(type)}" messages are not supported and were skipped (only user messages are read)\n`);
        toldControl = true;
        continue;
      }
      yield value as SDKUserMessage;
    }
  } finally {
    lines.close();
  }
}

export type { SDKMessage };
