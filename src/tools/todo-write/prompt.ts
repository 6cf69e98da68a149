export const TODO_WRITE_TOOL_NAME = 'TodoWrite';

export const TODO_WRITE_RESULT =
  'The todo list is updated. Keep working through it, and keep it current: mark each item completed as soon as it is done.';

export function todoWritePrompt(): string {
  return [
    'Keeps a checklist for the current task, so progress stays visible and nothing is forgotten.',
    '',
    'Use it for work of three steps or more, or when the person gives several things to do. Skip it for a single',
    'small change or a question.',
    '',
    'Each call replaces the whole list. Every item has `content` (what to do, imperative: "Run the tests"),',
    '`activeForm` (the same while it happens: "Running the tests") and `status` (pending, in_progress, completed).',
    'Keep exactly one item in_progress while you work; mark an item completed right after finishing it, not in',
    'batches; add items you discover; remove items that no longer matter. When every item is completed the list is',
    'cleared.',
  ].join('\n');
}
