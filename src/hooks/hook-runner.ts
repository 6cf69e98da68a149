import type { HookRunner, HookRunnerOptions } from './types.js';

export function createHookRunner(opts: HookRunnerOptions): HookRunner {
  void opts;
  return {
    hasHooks: () => false,
    preToolUse: async () => ({ additionalContext: [], systemMessages: [], nonBlockingErrors: [] }),
    postToolUse: async () => ({ additionalContext: [], systemMessages: [], nonBlockingErrors: [] }),
    postToolUseFailure: async () => ({ additionalContext: [], systemMessages: [], nonBlockingErrors: [] }),
    permissionRequest: async () => ({ nonBlockingErrors: [] }),
    permissionDenied: async () => ({ additionalContext: [], nonBlockingErrors: [] }),
  };
}
