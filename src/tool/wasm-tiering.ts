/**
 * V8's wasm tiering budget: how much a wasm function runs on the baseline compiler (Liftoff) before V8 sends it to
 * TurboFan. A TurboFan job runs in the background, and a short process waits for every such job before it can exit
 * (Node drains the platform's tasks first). Two wasm modules reach toolgate's processes: the bash grammar (its lexer is
 * one 160 KB function: ~700 ms, ~60 MB to optimise) and undici's HTTP parser, llhttp, behind `fetch` (the Anthropic
 * SDK, WebFetch): a one-turn `toolgate -p` sat ~110 ms idle after its answer, waiting for llhttp's optimisation.
 *
 * Modules compiled under the raised budget stay on the baseline tier until they have run for a very long time
 * (effectively never in a short process). The grammar is always compiled under it (`withBaselineWasm`), after which
 * the process's own budget is back; the CLI raises it for its whole process (`keepWasmOnBaselineTier`) — at its first
 * wasm compile, not before: V8 checks every code cache against the flags, and Node's cache of its own built-in modules
 * (and the CLI's, bin/cached-bundle.js) was made under the defaults. Raised at start, it had each built-in loaded
 * afterwards compiled from source (44 of them in an `exec` of one Bash call).
 */
import v8 from 'node:v8';

const RAISED = '--wasm-tiering-budget=2000000000';

/** The budget a process starts with: its command line's, else V8's default. */
function startingWasmBudget(execArgv: readonly string[] = process.execArgv): string {
  return (
    execArgv.findLast((a) => a.startsWith('--wasm-tiering-budget=') || a.startsWith('--wasm_tiering_budget=')) ??
    '--wasm-tiering-budget=1800000'
  );
}

/** The budget this process runs with between our compiles: its starting one, or the raised one. */
let processBudget = startingWasmBudget();
let armed = false;

type Entry = (...args: unknown[]) => unknown;
/** WebAssembly's ways in to a compile (the compiler options declare no WebAssembly global for TypeScript). */
interface WasmEntries {
  compile: Entry;
  compileStreaming: Entry;
  instantiate: Entry;
  instantiateStreaming: Entry;
  Module: new (...args: unknown[]) => object;
}
const wasmGlobal = (): WasmEntries => (globalThis as unknown as { WebAssembly: WasmEntries }).WebAssembly;

/**
 * Every wasm module compiled from now on stays on the baseline tier (short processes: the CLI's commands). The budget
 * goes up as the first module is compiled, through any of WebAssembly's entry points (undici compiles llhttp with
 * `WebAssembly.compile` at its first connection); the originals are put back then.
 */
export function keepWasmOnBaselineTier(): void {
  if (armed || processBudget === RAISED) return;
  armed = true;
  const wasm = wasmGlobal();
  const originals: WasmEntries = {
    compile: wasm.compile,
    compileStreaming: wasm.compileStreaming,
    instantiate: wasm.instantiate,
    instantiateStreaming: wasm.instantiateStreaming,
    Module: wasm.Module,
  };
  const raise = (): void => {
    if (processBudget !== RAISED) {
      processBudget = RAISED;
      v8.setFlagsFromString(RAISED);
    }
    Object.assign(wasm, originals);
  };
  // A caller that kept a reference to one of these still reaches the original through it.
  const through =
    <K extends 'compile' | 'compileStreaming' | 'instantiate' | 'instantiateStreaming'>(key: K) =>
    (...args: unknown[]): unknown => {
      raise();
      return originals[key].apply(wasm, args);
    };
  Object.assign(wasm, {
    compile: through('compile'),
    compileStreaming: through('compileStreaming'),
    instantiate: through('instantiate'),
    instantiateStreaming: through('instantiateStreaming'),
    Module: new Proxy(originals.Module, {
      construct(target, args, newTarget) {
        raise();
        return Reflect.construct(target, args, newTarget) as object;
      },
    }),
  });
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
