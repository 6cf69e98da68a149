/**
 * Glob: files by name pattern, oldest first, at most 100 with a note on the rest (Claude Code 2.1.328's fields and
 * texts). Hidden files are listed and .gitignore is not applied unless `settings.globRespectGitignore` is on.
 * Read-only and concurrency-safe; the engine checks read access to `getPath(input)` — the folder actually walked,
 * which for `../x/**` or an absolute pattern is not the cwd — and files denied by Read rules are never listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import { textToolResult } from '../../tool/tool-result.js';
import { formatDuration } from '../shared/units.js';
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
import { listFiles, patternNamesVcsDirectory, planGlob } from './glob-files.js';
import { GLOB_MAX_RESULTS, GLOB_TOOL_NAME, globPrompt } from './prompt.js';

declare module '../../tool/tool-use-context.js' {
  interface ToolSettings {
    /** Skip files ignored by .gitignore / .ignore in Glob (default false: Glob lists them, like Claude Code). */
    readonly globRespectGitignore?: boolean;
    /** Glob's time limit in milliseconds (default 20 000). */
    readonly globTimeoutMs?: number;
  }
}

export const DEFAULT_GLOB_TIMEOUT_MS = 20_000;

export const globInputSchema = z.strictObject({
  pattern: z.string().describe('The glob pattern to match files against'),
  path: z
    .string()
    .optional()
    .describe(
      'The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit ' +
        'this field to use the default directory. DO NOT enter "undefined" or "null" - simply omit it for the default ' +
        'behavior. Must be a valid directory path if provided.',
    ),
});

export type GlobInput = z.infer<typeof globInputSchema>;

export interface GlobOutput {
  durationMs: number;
  numFiles: number;
  /** Paths relative to the cwd when under it (absolute otherwise), oldest first. */
  filenames: string[];
  truncated: boolean;
  /** How many files matched in all. */
  totalMatches?: number;
  countIsComplete?: boolean;
}

/** The note under a truncated listing (Claude Code's wording). */
export function globTruncationNote(shown: number, totalMatches: number | undefined, countIsComplete: boolean | undefined): string {
  if (totalMatches === undefined) return '(Results are truncated. Consider using a more specific path or pattern.)';
  if (countIsComplete === true) {
    return `(Showing ${shown} of ${totalMatches} matching files; ${totalMatches - shown} more are not listed. Narrow the pattern or path to see the rest.)`;
  }
  return `(Showing the first ${shown} files; there are more than ${totalMatches} matches. Narrow the pattern or path to see the rest.)`;
}

export const GlobTool = buildTool({
  name: GLOB_TOOL_NAME,
  asyncSafe: true,
  permissionTraits: { kind: 'search', pathField: 'path', patternField: 'pattern' },
  searchHint: 'find files by name pattern or wildcard',
  inputSchema: globInputSchema,
  maxResultSizeChars: 100_000,

  async prompt(options) {
    return globPrompt(options.tools);
  },
  ...searchToolTraits,

  /**
   * The folder the listing walks, for read permission and working directories. The engine sees the backfilled input
   * (absolute `path`); a relative result is resolved by the engine against its cwd.
   */
  getPath(input) {
    return planGlob(input.pattern, givenPath(input.path) ?? '.').root;
  },

  async validateInput(input, context) {
    const nul = nullByteMessage(GLOB_TOOL_NAME, [
      ['pattern', input.pattern],
      ['path', input.path],
    ]);
    if (nul !== undefined) return { result: false, message: nul, errorCode: 2 };
    if (input.pattern.trim() === '') return { result: false, message: 'Glob pattern cannot be empty.', errorCode: 3 };
    const given = givenPath(input.path);
    if (given === undefined) return { result: true };
    const cwd = sessionCwd(context);
    const dir = resolveSearchPath(given, cwd, sessionHomeDir(context));
    try {
      const stat = await fs.promises.stat(dir);
      // Both sent without <tool_use_error>, as Claude Code sends them.
      if (!stat.isDirectory()) return { result: false, message: `Path is not a directory: ${given}`, errorCode: 2, unwrapped: true };
    } catch (error) {
      if (isMissingFileError(error)) {
        return { result: false, message: `Directory does not exist: ${given}. ${CWD_NOTE} ${cwd}.`, errorCode: 1, unwrapped: true };
      }
      return { result: false, message: `Cannot search ${given}: ${(error as Error).message}`, errorCode: 1 };
    }
    return { result: true };
  },

  async call(input, context) {
    const start = Date.now();
    const home = sessionHomeDir(context);
    const searchPath = resolveSearchPath(input.path, sessionCwd(context), home);
    const plan = planGlob(input.pattern, searchPath, home);
    const timeoutMs = context.options.settings.globTimeoutMs ?? DEFAULT_GLOB_TIMEOUT_MS;
    // The folder walked is the one the permission decision judged, opened before rg starts (search-path.ts).
    const bound = openSearchRoot(plan.root, context, false);
    if (bound === undefined) return { data: { durationMs: Date.now() - start, numFiles: 0, filenames: [], truncated: false } };
    let listing: Awaited<ReturnType<typeof listFiles>>;
    try {
      listing = await listFiles({
        plan,
        respectGitignore: context.options.settings.globRespectGitignore === true,
        includeVcs: patternNamesVcsDirectory(input.pattern),
        deny: readDenyFilter(context.getAppState().toolPermissionContext, plan.root, bound.real),
        limit: GLOB_MAX_RESULTS,
        signal: context.abortController.signal,
        timeoutMs,
        bound,
      });
    } finally {
      bound.close();
    }
    if (listing.timedOut) {
      // A partial listing sorted by modification time would be misleading: say so instead.
      throw new Error(
        `Glob timed out after ${formatDuration(timeoutMs)} listing ${plan.root} ` +
          `(${listing.totalMatches} matching files found so far). Use a more specific path or pattern.`,
      );
    }
    const truncated = listing.totalMatches > listing.files.length;
    // Relative to the session's cwd when under it (absolute otherwise), as Claude Code lists them: fewer tokens.
    const cwd = sessionCwd(context);
    const filenames = listing.files.map((f) => {
      const rel = path.relative(cwd, f);
      return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : f;
    });
    return {
      data: {
        durationMs: Date.now() - start,
        numFiles: listing.files.length,
        filenames,
        truncated,
        ...(truncated ? { totalMatches: listing.totalMatches, countIsComplete: true } : {}),
      },
    };
  },

  mapToolResultToToolResultBlockParam(output: GlobOutput, toolUseID) {
    if (output.filenames.length === 0) return textToolResult(toolUseID, 'No files found');
    const lines = [...output.filenames];
    if (output.truncated) lines.push(globTruncationNote(output.filenames.length, output.totalMatches, output.countIsComplete));
    return textToolResult(toolUseID, lines.join('\n'));
  },
  renderToolUseMessage(input: Partial<GlobInput>) {
    const parts = [`pattern: "${input.pattern ?? ''}"`];
    if (input.path !== undefined) parts.push(`path: "${input.path}"`);
    return parts.join(', ');
  },
  loadViews: () => import('./render.js').then((m) => m.globViews),
  renderToolResultMessage(output: GlobOutput) {
    return `Found ${output.numFiles} ${output.numFiles === 1 ? 'file' : 'files'}${output.truncated ? ' (truncated)' : ''}`;
  },
});
