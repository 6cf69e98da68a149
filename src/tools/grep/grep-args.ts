/**
 * Grep's input schema (Claude Code 2.1.328's fields and defaults) and the ripgrep command line built from it.
 */
import * as z from 'zod';
import { denyGlobArgs, vcsExcludeArgs, type ReadDenyFilter } from '../shared/search-path.js';

export const DEFAULT_HEAD_LIMIT = 250;

const count = (what: string) =>
  z.number().int().nonnegative().optional().describe(`${what} Requires output_mode: "content"; ignored otherwise.`);

export const grepInputSchema = z.strictObject({
  pattern: z.string().describe('The regular expression to search for in file contents (ripgrep syntax)'),
  path: z
    .string()
    .optional()
    .describe('File or directory to search in (rg PATH). Defaults to the current working directory.'),
  glob: z
    .string()
    .optional()
    .describe('Glob pattern that filters which files are searched (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe(
      'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), ' +
        '"files_with_matches" shows file paths, newest first (supports head_limit), "count" shows match counts per ' +
        'file and the total (supports head_limit). Defaults to "files_with_matches".',
    ),
  '-B': count('Number of lines to show before each match (rg -B).'),
  '-A': count('Number of lines to show after each match (rg -A).'),
  '-C': count('Alias for context.'),
  context: count('Number of lines to show before and after each match (rg -C).'),
  '-n': z
    .boolean()
    .optional()
    .describe('Show line numbers in output (rg -n). Requires output_mode: "content"; ignored otherwise. Defaults to true.'),
  '-i': z.boolean().optional().describe('Case insensitive search (rg -i)'),
  '-o': z
    .boolean()
    .optional()
    .describe('Print only the matched parts of each line (rg -o). Requires output_mode: "content"; ignored otherwise.'),
  type: z
    .string()
    .optional()
    .describe('File type to search (rg --type), e.g. js, py, rust, go, java. More efficient than glob for standard file types.'),
  head_limit: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'Limit output to the first N lines/entries, like "| head -N", in every output mode. Defaults to 250 when ' +
        'unspecified. Pass 0 for no limit (use sparingly: large result sets waste context).',
    ),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Skip the first N lines/entries before applying head_limit, like "| tail -n +N | head -N". Defaults to 0.'),
  multiline: z
    .boolean()
    .optional()
    .describe('Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.'),
});

export type GrepInput = z.infer<typeof grepInputSchema>;
export type GrepOutputMode = NonNullable<GrepInput['output_mode']>;

/**
 * In content mode the path and line-number fields end in NUL + the usual separator (`:` for a match, `-` for context),
 * so a file name containing `:` or `-` can still be cut off exactly (for the Read-deny post-filter); removing the
 * NULs gives rg's ordinary `path:12:text` form.
 */
export const FIELD_MATCH_SEPARATOR = '\\x00:';
export const FIELD_CONTEXT_SEPARATOR = '\\x00-';

/** Claude Code's split of the `glob` field: on whitespace, then on commas — except inside a `{…}` alternation. */
export function splitGlobParam(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const out: string[] = [];
  for (const raw of glob.split(/\s+/)) {
    if (raw === '') continue;
    if (raw.includes('{') && raw.includes('}')) out.push(raw);
    else out.push(...raw.split(',').filter((g) => g !== ''));
  }
  return out;
}

/** The flags common to the tool and to the benchmark's raw rg run: everything but the search target. */
export function buildGrepArgs(input: GrepInput, deny: ReadDenyFilter): string[] {
  const sort = (input.output_mode ?? 'files_with_matches') === 'content' ? ['--sort', 'path'] : [];
  // Always -e: a pattern that starts with `-` must not be read as a flag.
  return [...searchFlags(input), ...sort, ...selectFlags(input, deny), '-e', input.pattern];
}

/** How rg searches and prints (not which files): for a search of files already chosen and opened (grep-bound.ts). */
export function searchFlags(input: GrepInput): string[] {
  const mode: GrepOutputMode = input.output_mode ?? 'files_with_matches';
  // --no-config: a user's RIPGREP_CONFIG_PATH must not change what the model gets.
  const args = ['--no-config', '--hidden', '--no-follow', '--max-columns', '500', '--color', 'never', '--no-heading'];
  if (input.multiline === true) args.push('-U', '--multiline-dotall');
  if (input['-i'] === true) args.push('-i');
  if (mode === 'files_with_matches') {
    args.push('--files-with-matches', '--null');
  } else if (mode === 'count') {
    args.push('--count', '--with-filename', '--null');
  } else {
    args.push('--field-match-separator', FIELD_MATCH_SEPARATOR, '--field-context-separator', FIELD_CONTEXT_SEPARATOR);
    args.push(input['-n'] === false ? '--no-line-number' : '--line-number');
    if (input['-o'] === true) args.push('--only-matching');
    const both = input.context ?? input['-C'];
    if (both !== undefined) {
      args.push('-C', String(both));
    } else {
      if (input['-B'] !== undefined) args.push('-B', String(input['-B']));
      if (input['-A'] !== undefined) args.push('-A', String(input['-A']));
    }
    // A stable order (--sort path, or the listing's order: grep-bound.ts) makes offset pages line up from one call to
    // the next, and lets the search stop once the page is full instead of reading every match.
  }
  return args;
}

/** Which files rg searches: type, the model's globs, then the exclusions. */
export function selectFlags(input: GrepInput, deny: ReadDenyFilter): string[] {
  const args: string[] = [];
  if (input.type !== undefined && input.type !== '') args.push('--type', input.type);
  for (const glob of splitGlobParam(input.glob)) args.push('--glob', glob);
  // Exclusions go last: with rg the later glob wins, so a user glob such as `**` cannot re-include them.
  args.push(...vcsExcludeArgs(), ...denyGlobArgs(deny));
  return args;
}
