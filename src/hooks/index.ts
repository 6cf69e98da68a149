export * from './types.js';
export { parseHooksSettings } from './parse-hooks-settings.js';
export { createHookRunner, DEFAULT_CALLBACK_TIMEOUT_MS, DEFAULT_HOOK_TIMEOUT_MS } from './hook-runner.js';
export { compileHookMatcher, matchesHookMatcher } from './matcher.js';
export { MAX_HOOK_OUTPUT_CHARS } from './persist-output.js';
export { describeHooks, type ResolvedHook } from './describe-hooks.js';
export {
  createLoopHooks,
  LOOP_HOOK_EVENT_NAMES,
  type LoopHookCallback,
  type LoopHookEvent,
  type LoopHookEventName,
  type LoopHookOutcome,
  type LoopHooks,
} from './loop-hooks.js';
