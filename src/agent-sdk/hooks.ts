/**
 * `options.hooks` → toolgate's in-process hook callbacks. A callback receives the input object a command hook reads on
 * stdin (Claude Code's, which is the Agent SDK's), the tool call's id, and a signal for its time; what it returns is
 * read as a command hook's JSON output. `timeout` is in seconds, as in the Agent SDK; `onFailure: 'block'` makes a
 * callback that throws or times out block the action it guards (fail closed).
 */
import type { HookCallback as ToolgateHookCallback } from '../hooks/types.js';
import type { HookCallbackMatcher, HookEvent, HookInput } from './hook-types.js';

/** The events toolgate fires; callbacks for any other event are accepted and never called (docs/agent-sdk.md). */
export const HOOK_EVENTS_FIRED: readonly HookEvent[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'SubagentStart',
  'SubagentStop',
];

const FIRED = new Set<string>(HOOK_EVENTS_FIRED);

export class HookOptionError extends TypeError {
  override readonly name = 'HookOptionError';
}

/** Waits until the program was handed the assistant message with this call (delivery.ts); absent: no wait. */
export type CallDelivered = (toolUseId: string | undefined, signal: AbortSignal) => Promise<void>;

export function hookCallbacks(hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> | undefined, delivered?: CallDelivered): ToolgateHookCallback[] {
  const out: ToolgateHookCallback[] = [];
  for (const [event, matchers] of Object.entries(hooks ?? {})) {
    if (!Array.isArray(matchers)) throw new HookOptionError(`options.hooks.${event} must be an array of { matcher?, hooks: [callback] }`);
    matchers.forEach((group, i) => {
      const at = `options.hooks.${event}[${i}]`;
      if (group === null || typeof group !== 'object' || !Array.isArray(group.hooks)) throw new HookOptionError(`${at} must be { matcher?, hooks: [callback], timeout? }`);
      if (group.matcher !== undefined && typeof group.matcher !== 'string') throw new HookOptionError(`${at}.matcher must be a string`);
      if (group.timeout !== undefined && !(typeof group.timeout === 'number' && group.timeout > 0)) throw new HookOptionError(`${at}.timeout must be a positive number of seconds`);
      group.hooks.forEach((callback, j) => {
        if (typeof callback !== 'function') throw new HookOptionError(`${at}.hooks[${j}] must be a function`);
        if (!FIRED.has(event)) return;
        out.push({
          event: event as ToolgateHookCallback['event'],
          ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
          ...(group.timeout !== undefined ? { timeoutMs: Math.round(group.timeout * 1000) } : {}),
          ...(group.onFailure === 'block' ? { failClosed: true } : {}),
          name: `options.hooks.${event}[${i}].hooks[${j}]`,
          async callback(input, signal) {
            const toolUseId = typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined;
            await delivered?.(toolUseId, signal);
            const output = await callback(input as unknown as HookInput, toolUseId, { signal });
            // An async answer decides nothing: the action goes on.
            if (output === undefined || output === null || (typeof output === 'object' && 'async' in output && output.async === true)) return {};
            return output as Record<string, unknown>;
          },
        });
      });
    });
  }
  return out;
}
