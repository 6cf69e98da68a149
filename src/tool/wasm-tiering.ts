/**
 * V8's wasm tiering budget: how much a wasm function runs on the baseline compiler (Liftoff) before V8 sends it to
 * TurboFan. A TurboFan job runs in the background, and a short process waits for every such job before it can exit
 * (Node drains the platform's tasks first). Two wasm modules reach toolgate's processes: the bash grammar (its lexer is
 * one 160 KB function: ~700 ms, ~60 MB to optimise) and undici's HTTP parser, llhttp, behind `fetch` (the Anthropic
 * SDK, WebFetch): a one-turn `toolgate -p` sat ~110 ms idle after its answer, waiting for llhttp's optimisation.
 *
 * Modules compiled under the raised budget stay on the baseline tier until they have run for a very long time
 * (effectively never in a short process). The grammar is always compiled under it (`withBaselineWasm`); the CLI has
 * every wasm compile of its process made under it (`keepWasmOnBaselineTier`). Raised only while a compile runs, never
 * for the process: V8 checks every code cache against the flags, and Node's cache of its own built-in modules (and the
 * CLI's, bin/cached-bundle.js) was made under the defaults. Raised at start, it had each built-in loaded afterwards
 * compiled from source (44 of them in an `exec` of one Bash call); raised from the first compile on, 17 in `-p`.
 */
const RAISED = '--wasm-tiering-budget=2000000000';

/**
 * node:v8 on a wasm compile only, not as the module loads: it brings the heap utilities and Node's streams, which a
 * short command that compiles no wasm (a hook's `git status`) has no use for.
 */
const setV8Flags = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

/** The budget a process starts with: its command line's, else V8's default. */
function startingWasmBudget(execArgv: readonly string[] = process.execArgv): string {
  return (
    execArgv.findLast((a) => a.startsWith('--wasm-tiering-budget=') || a.startsWith('--wasm_tiering_budget=')) ??
    '--wasm-tiering-budget=1800000'
  );
}

/** The budget this process runs with between our compiles: its starting one. */
const processBudget = startingWasmBudget();
let armed = processBudget === RAISED;

type Entry = (...args: unknown[]) => unknown;
/** WebAssembly's ways in to a compile (the compiler options declare no WebAssembly global for TypeScript). */
interface WasmEntries {
  compile: Entry;
  compileStreaming: Entry;
  instantiate: Entry;
  instantiateStreaming: Entry;
  Module: new (...args: unknown[]) => object;
  Instance: new (...args: unknown[]) => object;
}
const wasmGlobal = (): WasmEntries => (globalThis as unknown as { WebAssembly: WasmEntries }).WebAssembly;

/** How many intercepted compiles are under way: the budget stays raised until the last one is done. */
let inFlight = 0;

function raiseFor<T>(run: () => T): T {
  if (inFlight++ === 0) setV8Flags(RAISED);
  let result: T;
  try {
    result = run();
  } catch (error) {
    lower();
    throw error;
  }
  if (result instanceof Promise) {
    // Settled either way, the module is made (and an instance has taken its budget): the process's own comes back.
    return result.finally(lower) as T;
  }
  lower();
  return result;
}

function lower(): void {
  if (--inFlight === 0) setV8Flags(processBudget);
}

/**
 * Every wasm module compiled or instantiated from now on stays on the baseline tier (short processes: the CLI's
 * commands), through any of WebAssembly's entry points (undici compiles llhttp with `WebAssembly.compile` at its first
 * connection). The budget is raised only while a module is made: a module keeps the budget it was made under, while a
 * built-in module loaded afterwards is checked against the process's starting flags, which its code cache was made
 * under. So a compile from bytes is done synchronously (`new WebAssembly.Module`, tens of KB on the baseline
 * compiler: a few ms) inside the raise, and its promise answered with the result: an asynchronous compile kept the
 * budget raised while the connection's own modules loaded (16 built-ins compiled from source in a one-turn
 * `toolgate -p`; left raised for good, 17).
 */
export function keepWasmOnBaselineTier(): void {
  if (armed) return;
  armed = true;
  const wasm = wasmGlobal();
  const { compile, compileStreaming, instantiate, instantiateStreaming, Module, Instance } = wasm;
  const isBytes = (x: unknown): boolean => ArrayBuffer.isView(x) || x instanceof ArrayBuffer;
  const settle = <T>(make: () => T): Promise<T> => {
    try {
      return Promise.resolve(raiseFor(make));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  Object.assign(wasm, {
    compile: (...args: unknown[]) => (isBytes(args[0]) ? settle(() => new Module(args[0])) : compile.apply(wasm, args)),
    instantiate: (...args: unknown[]) => {
      const [source, imports] = args;
      if (isBytes(source)) {
        return settle(() => {
          const module = new Module(source);
          return { module, instance: new Instance(module, imports) };
        });
      }
      if (source instanceof Module) return settle(() => new Instance(source, imports));
      return instantiate.apply(wasm, args);
    },
    // A Response arrives over time: compiled as it comes, under the budget raised until it is done.
    compileStreaming: (...args: unknown[]) => raiseFor(() => compileStreaming.apply(wasm, args)),
    instantiateStreaming: (...args: unknown[]) => raiseFor(() => instantiateStreaming.apply(wasm, args)),
    Module: construct(Module),
    Instance: construct(Instance),
  });
}

function construct(target: new (...args: unknown[]) => object): new (...args: unknown[]) => object {
  return new Proxy(target, { construct: (t, args, newTarget) => raiseFor(() => Reflect.construct(t, args, newTarget) as object) });
}

/** Compiles under the raised budget, then puts the process's own back (once no other compile needs it raised). */
export function withBaselineWasm<T>(compile: () => Promise<T>): Promise<T> {
  // Armed, every compile is made under it already, without holding it raised across the load's other work.
  return armed ? compile() : raiseFor(compile);
}
