/**
 * The one place that knows what the engine's synchronous judgements need loaded first. A shell tool's permission
 * checks, its read-only and its concurrency answers read the parsed command. A plain command (`git status`) parses
 * in JS; any other needs the wasm bash parser, which loads on first need (~14 MB and up to 150 ms, which a process
 * that never judges such a command should not pay). Until it is there those analyses fail closed (asks, not
 * read-only, runs alone) and are not cached.
 *
 * Callers above (the executor, the engine's resolution) ask `analysisReady(tool, input)` and wait when it gives a
 * promise; they never name the parser.
 */
import type { AnyTool } from '../tool/tool.js';
import { needsBashParser } from './bash/analyze.js';
import { isBashParserLoaded, loadBashParser } from './bash/parser.js';
import { commandFieldOf, isShellTool } from './tool-traits.js';

/**
 * `undefined` when this call can be judged now; otherwise a promise that settles when it can (never rejects). Without
 * the input (or with a command that is not a string) a shell tool waits for the parser.
 */
export function analysisReady(tool: AnyTool, input?: Readonly<Record<string, unknown>>): Promise<void> | undefined {
  if (isBashParserLoaded() || !isShellTool(tool)) return undefined;
  const command = input?.[commandFieldOf(tool)];
  if (typeof command === 'string' && !needsBashParser(command)) return undefined;
  // A parser that cannot load leaves the judgements failing closed; the engine's analysis reports why.
  return loadBashParser().catch(() => undefined);
}
