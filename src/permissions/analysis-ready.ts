/**
 * The one place that knows what the engine's synchronous judgements need loaded first. A shell tool's permission
 * checks, its read-only and its concurrency answers read the parsed command, and the bash parser loads on first need
 * (its wasm costs ~14 MB and up to 150 ms, which a process that never judges a command should not pay). Until it is
 * there every analysis fails closed (asks, not read-only, runs alone) and is not cached.
 *
 * Callers above (the executor, the engine's resolution) ask `analysisReady(tool)` and wait when it gives a promise;
 * they never name the parser.
 */
import type { AnyTool } from '../tool/tool.js';
import { isBashParserLoaded, loadBashParser } from './bash/parser.js';
import { isShellTool } from './tool-traits.js';

/** `undefined` when this tool's calls can be judged now; otherwise a promise that settles when they can (never rejects). */
export function analysisReady(tool: AnyTool): Promise<void> | undefined {
  if (isBashParserLoaded() || !isShellTool(tool)) return undefined;
  // A parser that cannot load leaves the judgements failing closed; the engine's analysis reports why.
  return loadBashParser().catch(() => undefined);
}
