import { systemReminderText } from '../../tool/message-origin.js';

export const TOOL_SEARCH_DEFAULT_MAX_RESULTS = 5;

export function toolSearchPrompt(): string {
  return [
    'Loads the full definitions of deferred tools so they can be called. Deferred tools are listed by name only (in a',
    'system reminder); their parameters are unknown until loaded, and calling one before loading it fails.',
    '',
    'Query forms:',
    '- "select:Name1,Name2" loads exactly these tools (use it when you already know the names).',
    '- Keywords ("jupyter notebook cell") return the best matches, ranked by name, search hint and description.',
    '- "+word" requires the word in the tool name; the other words rank what remains ("+slack send").',
    '',
    'Load every tool you will need in one call; the loaded tools can be called from your next reply on.',
  ].join('\n');
}

/** The system reminder that announces deferred tools by name (no schema: that is what ToolSearch is for). */
export function deferredToolsAnnouncement(names: readonly string[]): string {
  return systemReminderText(
    `These tools are available but deferred: their parameters are not loaded yet. Load the ones you need with ToolSearch before calling them.\n${names.join('\n')}`,
  );
}
