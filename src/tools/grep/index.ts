/**
 * Grep: content search with ripgrep, Claude Code 2.1.328's fields and result texts. Read-only and concurrency-safe;
 * the permission engine checks read access to `getPath(input)` (the file or folder searched), and files denied by
 * Read rules are excluded from the search itself, not just from what is shown.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildTool } from '../../tool/build-tool.js';
import { textToolResult } from '../../tool/tool-result.js';
import { grepInputSchema, type GrepInput } from './grep-args.js';
import { formatGrepOutput, type GrepOutput } from './grep-format.js';
import { searchWithRipgrep } from './grep-search.js';
import { GREP_TOOL_NAME, grepPrompt } from './prompt.js';
import {
  CWD_NOTE,
  givenPath,
  isMissingFileError,
  nullByteMessage,
  openSearchRoot,
  readDenyFilter,
  resolveSearchPath,
  searchToolTraits,
  sessionCwd,
  sessionHomeDir,
} from '../shared/search-path.js';

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    /** Grep's time limit in milliseconds (default 20 000); past it rg is stopped and what it found is returned. */
    readonly grepTimeoutMs?: number;
  }
}

export const DEFAULT_GREP_TIMEOUT_MS = 20_000;

export type { GrepInput, GrepOutput };

/** What a running search reports: how many entries rg has printed so far (`unit` by output mode). */
export interface GrepProgress {
  readonly type: 'grep_progress';
  readonly found: number;
  readonly unit: 'files' | 'lines';
  readonly [key: string]: unknown;
}

export const GrepTool = buildTool<typeof grepInputSchema, GrepOutput, GrepProgress>({
  name: GREP_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'search', pathField: 'path' },
  searchHint: 'search file contents with regex (ripgrep)',
  inputSchema: grepInputSchema,
  // The seeds' figure (Claude Code 2.1.328's binary has 20,000): search results with context lines add up fast.
  maxResultSizeChars: 100_000,
  strict: true,

  async prompt(options) {
    return grepPrompt(options.tools);
  },
  ...searchToolTraits,

  /**
   * The file or folder the engine checks read permission and working directories for. It sees the backfilled input
   * (absolute `path`); a relative path, or none (the cwd), is resolved by the engine against its cwd.
   */
  getPath(input) {
    return givenPath(input.path);
  },

  async validateInput(input, context) {
    const nul = nullByteMessage(GREP_TOOL_NAME, [
      ['pattern', input.pattern],
      ['path', input.path],
      ['glob', input.glob],
      ['type', input.type],
    ]);
    if (nul !== undefined) return { result: false, message: nul, errorCode: 2 };
    const given = givenPath(input.path);
    if (given === undefined) return { result: true };
    const cwd = sessionCwd(context);
    const target = resolveSearchPath(given, cwd, sessionHomeDir(context));
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(target);
    } catch (error) {
      if (isMissingFileError(error)) {
        return { result: false, message: `Path does not exist: ${given}. ${CWD_NOTE} ${cwd}.`, errorCode: 1 };
      }
      return { result: false, message: `Cannot search ${given}: ${(error as Error).message}`, errorCode: 1 };
    }
    // rg would block forever reading a FIFO or a terminal named directly.
    if (!stat.isFile() && !stat.isDirectory()) {
      return { result: false, message: `Path is not a regular file or directory: ${given}`, errorCode: 3 };
    }
    return { result: true };
  },

  async call(input, context, _canUseTool, _parentMessage, onProgress) {
    const start = Date.now();
    const cwd = sessionCwd(context);
    const permissionContext = context.getAppState().toolPermissionContext;
    const target = resolveSearchPath(input.path, cwd, sessionHomeDir(context));
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(target);
    } catch (error) {
      if (isMissingFileError(error)) throw new Error(`Path does not exist: ${input.path ?? target}. ${CWD_NOTE} ${cwd}.`);
      throw error;
    }
    if (!stat.isFile() && !stat.isDirectory()) throw new Error(`Path is not a regular file or directory: ${input.path}`);
    // What rg searches is what the permission decision judged, opened before rg starts (search-path.ts).
    const bound = openSearchRoot(target, context, true);
    if (bound === undefined) throw new Error(`Path is not a regular file or directory (it changed while it was opened): ${input.path ?? target}`);
    try {
      const targetIsFile = bound.isFile;
      const root = targetIsFile ? path.dirname(target) : target;
      const deny = readDenyFilter(permissionContext, root, targetIsFile ? path.dirname(bound.real) : bound.real);
      const mode = input.output_mode ?? 'files_with_matches';
      if (targetIsFile && deny.isDenied(target)) {
        // The engine denies this call before it gets here; should it not, the file still stays unread.
        return { data: { mode, numFiles: 0, filenames: [], ...(mode === 'files_with_matches' ? {} : { content: '' }), durationMs: 0 } };
      }
      const output = await searchWithRipgrep({
        input,
        target,
        targetIsFile,
        cwd: bound.cwd,
        searched: bound,
        deny,
        // A folder: rg opens nothing below it by name (grep-bound.ts) — where the open folder has a name of its own.
        ...(!targetIsFile && bound.cwd.startsWith('/proc/self/fd/') ? { walkBound: { root: bound.cwd, ctx: permissionContext } } : {}),
        signal: context.abortController.signal,
        timeoutMs: context.options.settings.grepTimeoutMs ?? DEFAULT_GREP_TIMEOUT_MS,
        shownFrom: cwd,
        // No count while Read deny rules name paths: rg's count could include a file the final filter then drops.
        ...(onProgress !== undefined && !deny.active
          ? { onFound: (found: number) => onProgress({ toolUseID: context.toolUseId ?? '', data: { type: 'grep_progress', found, unit: mode === 'content' ? 'lines' : 'files' } }) }
          : {}),
      });
      return { data: { ...output, durationMs: Date.now() - start } };
    } finally {
      bound.close();
    }
  },

  mapToolResultToToolResultBlockParam(output: GrepOutput, toolUseID) {
    return textToolResult(toolUseID, formatGrepOutput(output));
  },
  renderToolUseMessage(input: Partial<GrepInput>) {
    const parts = [`pattern: "${input.pattern ?? ''}"`];
    if (input.path !== undefined) parts.push(`path: "${input.path}"`);
    if (input.glob !== undefined) parts.push(`glob: "${input.glob}"`);
    if (input.type !== undefined) parts.push(`type: "${input.type}"`);
    if (input.output_mode !== undefined && input.output_mode !== 'files_with_matches') parts.push(`output_mode: "${input.output_mode}"`);
    return parts.join(', ');
  },
  loadViews: () => import('./render.js').then((m) => m.grepViews),
  renderToolResultMessage(output: GrepOutput) {
    if (output.mode === 'content') return `Found ${output.numLines ?? 0} ${output.numLines === 1 ? 'line' : 'lines'}`;
    if (output.mode === 'count') {
      const m = output.numMatches ?? 0;
      return `Found ${m} ${m === 1 ? 'match' : 'matches'} across ${output.numFiles} ${output.numFiles === 1 ? 'file' : 'files'}`;
    }
    return `Found ${output.numFiles} ${output.numFiles === 1 ? 'file' : 'files'}`;
  },
});
