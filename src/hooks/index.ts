export * from './types.js';
export { parseHooksSettings } from './parse-hooks-settings.js';
export { createHookRunner } from './hook-runner.js';
export { matchesHookMatcher } from './matcher.js';
