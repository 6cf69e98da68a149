/** The text the model reads about Glob. */
import type { Tools } from '../../tool/tool.js';

export const GLOB_TOOL_NAME = 'Glob';
export const GLOB_MAX_RESULTS = 100;

export function globPrompt(tools: Tools): string {
  const hasAgent = tools.some((t) => t.name === 'Agent');
  const hasGrep = tools.some((t) => t.name === 'Grep');
  const lines = [
    '- Fast file name matching that works on codebases of any size.',
    '- Takes glob patterns such as "**/*.js" or "src/**/*.ts". A pattern without "/" (like "*.md") matches at any depth; an absolute pattern ("/etc/**/*.conf") searches its own folder.',
    `- Returns the paths of matching files (relative to the working directory when under it, else absolute) sorted by modification time, oldest first. At most ${GLOB_MAX_RESULTS} files are listed; when more match, a note says how many — narrow the pattern or path to see the rest.`,
    '- Hidden files are included and .gitignore is not applied by default, so build output and dependencies can match: narrow the pattern to skip them. Version-control folders such as .git are skipped unless the pattern names them.',
    hasGrep
      ? '- Use it to find files by name or path. To search inside files, use Grep.'
      : '- Use it to find files by name or path.',
  ];
  if (hasAgent) {
    lines.push('- For an open-ended search that may take several rounds of globbing and grepping, use the Agent tool instead.');
  }
  return lines.join('\n');
}
