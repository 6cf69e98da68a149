/**
 * Hook activity for a face that shows it (the Agent SDK's `hook_started` / `hook_response` messages under
 * `includeHookEvents`): a command or http hook is announced when it starts and again with what it answered. In-process
 * callbacks are not announced, as in the Agent SDK. An observer that throws never touches the hook's verdict.
 */
import type { RawHookRun } from './run-hook-process.js';
import type { HookRunNotice } from './types.js';
import { randomUUID } from '../tool/crypto.js';

/** `run` unchanged; `observer` (when given) hears its start now and its answer when it settles. */
export function observeHookRun(observer: ((notice: HookRunNotice) => void) | undefined, event: string, name: string, run: Promise<RawHookRun>): Promise<RawHookRun> {
  if (!observer) return run;
  const id = randomUUID();
  tell(observer, { phase: 'started', id, name, event });
  return run.then((r) => {
    tell(observer, { phase: 'response', id, name, event, ...answerOf(r) });
    return r;
  });
}

function answerOf(run: RawHookRun): Pick<Extract<HookRunNotice, { phase: 'response' }>, 'stdout' | 'stderr' | 'exitCode' | 'outcome'> {
  switch (run.kind) {
    case 'exited':
      return { stdout: run.stdout, stderr: run.stderr, ...(run.code !== null ? { exitCode: run.code } : {}), outcome: run.code === 0 ? 'success' : 'error' };
    case 'json':
      return { stdout: JSON.stringify(run.output), stderr: '', outcome: 'success' };
    case 'aborted':
      return { stdout: '', stderr: '', outcome: 'cancelled' };
    case 'timeout':
      return { stdout: '', stderr: `timed out after ${run.timeoutMs} ms`, outcome: 'error' };
    case 'error':
      return { stdout: '', stderr: run.message, outcome: 'error' };
  }
}

function tell(observer: (notice: HookRunNotice) => void, notice: HookRunNotice): void {
  try {
    observer(notice);
  } catch {
    // a listener's failure is its own
  }
}
