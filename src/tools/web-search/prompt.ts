export const WEB_SEARCH_TOOL_NAME = 'WebSearch';

export function webSearchPrompt(): string {
  return [
    'Searches the web and returns result titles and links with a short summary, for information newer than your',
    'training or that you cannot know otherwise. Restrict or exclude sites with `allowed_domains` or',
    '`blocked_domains` (one of them per call, not both).',
    '',
    'After answering from the results, list the sources you used as Markdown links under a "Sources:" heading.',
    'Use the current year in queries about recent things.',
  ].join('\n');
}
