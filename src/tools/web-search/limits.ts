/**
 * WebSearch's session cap, on its own: settings/toolgate-key.ts holds a project to it, and importing the tool for a
 * number would load WebSearch (and its SDK types) into every command that reads settings.
 */
export const DEFAULT_MAX_WEB_SEARCHES_PER_SESSION = 200;
