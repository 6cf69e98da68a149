/**
 * One hook request, start to end, for the command hook and the HTTP server alike: the host's bytes → the JSON the
 * host reads, and the log entry. It never throws and never answers with silence: a request that is not JSON, not a
 * tool event, too large, or that the judge fails on gets the host's fail-closed answer (ask; Codex: deny).
 */
import { failClosedOutput, formatHookAnswer, HookProtocolError, parseHookRequest, type HookHost, type HookRequest } from './hook-hosts.js';
import type { FactMemo } from '../../permissions/observed-fs.js';
import type { HookJudge, HookVerdict } from './hook-judge.js';
import { logEntry, logRedactor, type HookLogEntry } from './hook-log.js';

/** Past this a request is not read further: no host sends a tool call of this size, and parsing it would be a denial of service. */
export const MAX_HOOK_REQUEST_BYTES = 16 * 1024 * 1024;

export interface HookAnswerOptions {
  /** `--host`; absent: Claude Code's protocol, or Gemini's when the event says BeforeTool. */
  readonly host?: HookHost;
  readonly cwd: string;
  /** False: no log entry is made (`--no-log`). */
  readonly log?: boolean;
  /** Filesystem answers of this moment, shared by requests that all arrived before it (HookJudge.judge). */
  readonly facts?: FactMemo;
}

export interface AnsweredHook {
  readonly output: Record<string, unknown>;
  /** Undefined with `log: false`. */
  readonly entry?: HookLogEntry;
}

export async function answerHook(text: string, options: HookAnswerOptions, judge: HookJudge): Promise<AnsweredHook> {
  // process.hrtime, not performance.now: the global `performance` loads perf_hooks (a dozen modules) on first touch,
  // in a command that runs once per tool call of its host.
  const started = process.hrtime.bigint();
  let request: HookRequest | undefined;
  let verdict: HookVerdict | undefined;
  let failure: string | undefined;
  try {
    if (text.length > MAX_HOOK_REQUEST_BYTES) throw new HookProtocolError(`the request is larger than ${MAX_HOOK_REQUEST_BYTES} bytes`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new HookProtocolError(`the request is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    request = parseHookRequest(raw, options.host, options.cwd);
    verdict = await judge.judge(request, options.facts);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const host = request?.host ?? options.host ?? 'claude';
  const output = verdict !== undefined && request !== undefined ? formatHookAnswer(request.host, request.event, verdict.answer) : failClosedOutput(host, request?.event, failure ?? 'no verdict');
  if (options.log === false) return { output };
  const fallback = { answer: failure !== undefined ? 'ask' : 'none', reason: `toolgate could not judge this call: ${failure ?? 'no verdict'}` };
  let entry: HookLogEntry;
  try {
    entry = logEntry(request, verdict, fallback, logRedactor(verdict?.settings), Number(process.hrtime.bigint() - started) / 1e6);
  } catch {
    entry = { time: new Date().toISOString(), host, event: request?.event ?? 'unknown', cwd: '', tool: '', input: null, answer: fallback.answer, reason: 'the log entry could not be made', calls: [] };
  }
  return { output, entry };
}
