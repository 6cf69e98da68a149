/**
 * V8's wasm tiering budget: how much a wasm function runs on the baseline compiler (Liftoff) before V8 sends it to
 * TurboFan. A TurboFan job runs in the background, and a short process waits for every such job before it can exit
 * (Node drains the platform's tasks first). Two wasm modules reach toolgate's processes: the bash grammar (its lexer is
 * one 160 KB function: ~700 ms, ~60 MB to optimise) and undici's HTTP parser, llhttp, behind `fetch` (the Anthropic
 * SDK, WebFetch): a one-turn `toolgate -p` sat ~110 ms idle after its answer, waiting for llhttp's optimisation.
 *
 * Modules compiled under the raised budget stay on the baseline tier until they have run for a very long time
 * (effectively never in a short process). The CLI raises it for its whole process (`keepWasmOnBaselineTier`); the
 * grammar is always compiled under it (`withBaselineWasm`), after which the process's own budget is back.
 */
import v8 from 'node:v8';

// bin/cached-bundle.js sets the same before it compiles the CLI: its code cache is made under this one.
const RAISED = '--wasm-tiering-budget=2000000000';

/** The budget this process runs with between our compiles: the command line's, V8's default, or the raised one. */
let processBudget =
  process.execArgv.findLast((a) => a.startsWith('--wasm-tiering-budget=') || a.startsWith('--wasm_tiering_budget=')) ??
  '--wasm-tiering-budget=1800000';

/** Every wasm module compiled from now on stays on the baseline tier (short processes: the CLI's commands). */
export function keepWasmOnBaselineTier(): void {
  processBudget = RAISED;
  v8.setFlagsFromString(RAISED);
}

/** Compiles under the raised budget, then puts the process's own back. */
export async function withBaselineWasm<T>(compile: () => Promise<T>): Promise<T> {
  v8.setFlagsFromString(RAISED);
  try {
    return await compile();
  } finally {
    v8.setFlagsFromString(processBudget);
  }
}
