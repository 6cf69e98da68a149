/** The text the model reads about Grep. */
import type { Tools } from '../../tool/tool.js';

export const GREP_TOOL_NAME = 'Grep';

export function grepPrompt(tools: Tools): string {
  const hasAgent = tools.some((t) => t.name === 'Agent');
  const hasBash = tools.some((t) => t.name === 'Bash');
  const lines = [
    'Searches file contents with ripgrep.',
    '',
    'Usage:',
    hasBash
      ? '- Use Grep for every content search. Do not run `grep` or `rg` through Bash: Grep is faster, its results are paged, and it never shows files the user has put off-limits.'
      : '- Use Grep for every content search: it is fast, its results are paged, and it never shows files the user has put off-limits.',
    '- The pattern is a ripgrep (Rust) regular expression, e.g. "log.*Error" or "function\\s+\\w+". Escape regex metacharacters to match them literally: `interface{}` in Go code is `interface\\{\\}`. Look-around and backreferences are not supported.',
    '- Narrow the files searched with `glob` (e.g. "*.js", "**/*.{ts,tsx}") or with `type` (e.g. "js", "py", "rust"; faster for standard languages), and with `path` (a directory or a single file).',
    '- output_mode "files_with_matches" (the default) lists the matching files, most recently modified first. "content" shows the matching lines as path:line:text, with line numbers by default (-n), context with -A/-B/-C, and only the matched part with -o. "count" shows the number of matching lines per file and the total.',
    '- Results are paged: 250 entries by default (head_limit; 0 means no limit). When a result says it was limited, call again with `offset` to see the next entries.',
    '- A pattern matches within one line unless multiline is true, which lets it span lines and lets `.` match newlines (e.g. `struct \\{[\\s\\S]*?field`).',
    '- Hidden files are searched; .git and other version-control folders are not, and neither are files ignored by .gitignore. Paths in results are relative to the working directory (absolute for files outside it).',
  ];
  if (hasAgent) {
    lines.push('- For an open-ended search that may take several rounds of searching, use the Agent tool instead.');
  }
  return lines.join('\n');
}
