/** Read's limits in one place: windows, caps and the sizes that switch between whole-file and streamed reads. */

export const DEFAULT_MAX_READ_TOKENS = 25_000;

/** A read of a whole text file larger than this is refused unless the model sets `allow_large` (Claude Code's 256 KB). */
export const WHOLE_READ_MAX_BYTES = 256 * 1024;

/** Files up to this size are read whole (hashed, decoded, kept for stale-edit diffs); larger ones are streamed. */
export const IN_MEMORY_MAX_BYTES = 10 * 1024 * 1024;
/** The hard cap: a file larger than this must be read with offset/limit. */
export const UNPAGED_MAX_BYTES = 64 * 1024 * 1024;
/** Streamed reads count lines to the end (to report the total) only up to this size; beyond, they stop early. */
export const COUNT_TO_EOF_MAX_BYTES = 256 * 1024 * 1024;
/** UTF-16 is decoded whole; larger UTF-16 files are refused. */
export const UTF16_MAX_BYTES = 64 * 1024 * 1024;

export const NOTEBOOK_MAX_BYTES = 100 * 1024 * 1024;
export const PDF_MAX_BYTES = 100 * 1024 * 1024;
export const PDF_MAX_PAGES_PER_READ = 20;
/** PDFs with more pages than this need `pages`. */
export const PDF_PAGES_REQUIRED_ABOVE = 10;

/**
 * The token cap of one Read result: `CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS` (Claude Code's variable) or
 * `TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS`, else 25,000. Tokens are estimated at four characters each.
 */
export function maxReadTokens(env: NodeJS.ProcessEnv = process.env): number {
  for (const name of ['TOOLGATE_FILE_READ_MAX_OUTPUT_TOKENS', 'CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS']) {
    const raw = env[name];
    if (raw === undefined) continue;
    const value = Number.parseInt(raw, 10);
    if (Number.isFinite(value) && value > 0) return value;
  }
  return DEFAULT_MAX_READ_TOKENS;
}
