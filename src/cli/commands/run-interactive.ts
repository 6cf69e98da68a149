/**
 * `toolgate` (no arguments) or `toolgate run` on a terminal without `-p`: the interactive session of `src/ui/`, one
 * session for the whole conversation, made from the same flags as `run -p` (run-flags.ts) — every flag that means
 * something in a terminal works here; the print-only ones are named on stderr. Loaded only then (Ink and React are
 * not small).
 */
import { guardSignals } from '../signals.js';
import { FlagError, printOnlyFlags, runSessionOptions } from './run-flags.js';
import type { RunOptions } from './run.js';

export async function runInteractive(opts: RunOptions, prompt = ''): Promise<number> {
  // `--resume` without an id: the session opens on its /resume picker of this folder's sessions, as claude's does.
  if (opts.resume === true) {
    opts = { ...opts, resume: undefined };
    prompt = '/resume';
  }
  if (!process.env.ANTHROPIC_API_KEY?.trim() && !process.env.ANTHROPIC_AUTH_TOKEN?.trim()) {
    process.stderr.write('toolgate: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; ANTHROPIC_BASE_URL for another endpoint)\n');
    return 1;
  }
  let flags: ReturnType<typeof runSessionOptions>;
  try {
    flags = runSessionOptions(opts, { print: false });
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`toolgate: ${error.message}\n`);
    return 1;
  }
  for (const note of flags.notes) process.stderr.write(`toolgate: ${note}\n`);
  const unapplied = printOnlyFlags(opts);
  if (unapplied.length > 0) process.stderr.write(`toolgate: not applied in the interactive session (print mode only): ${unapplied.join(', ')}\n`);
  const ui = await import('../../ui/start-session.js');
  // SIGTERM, SIGHUP (a closed terminal), SIGINT from outside: the turn is interrupted, its tools answered and the
  // transcript written, the runtime disposed (no process left), then 128 + n.
  const controller = new AbortController();
  const stopSignals = guardSignals(controller, { onForcedExit: (signal) => process.stderr.write(`toolgate: ${signal} again, exiting now\n`) });
  try {
    const code = await ui.startInteractiveSession({ session: flags.session, signal: controller.signal, ...(prompt ? { initialPrompt: prompt } : {}) });
    return stopSignals.exitCode ?? code;
  } finally {
    stopSignals.dispose();
  }
}
