/**
 * The JSON a hook reads on stdin (and a callback receives), field for field as Claude Code sends it (reference A4),
 * plus `tool_use_id` on PermissionRequest and `reason` on PermissionDenied, which hooks may ignore.
 */
import type { PermissionMode } from '../tool/permission-types.js';
import type { HookEventName, HookToolEvent } from './types.js';

/** Claude Code's `error` field: strings over 10,000 characters are middle-truncated. */
const MAX_ERROR_CHARS = 10_000;

export interface HookEventExtras {
  toolResponse?: unknown;
  error?: string;
  isInterrupt?: boolean;
  durationMs?: number;
  permissionSuggestions?: unknown[];
  reason?: string;
}

export function buildHookInput(event: HookEventName, e: HookToolEvent, extras: HookEventExtras = {}): Record<string, unknown> {
  const input: Record<string, unknown> = {
    session_id: e.sessionId,
    transcript_path: e.transcriptPath ?? '',
    cwd: e.cwd,
    permission_mode: claudePermissionMode(e.permissionMode),
    hook_event_name: event,
    tool_name: e.toolName,
    tool_input: e.toolInput,
    tool_use_id: e.toolUseId,
  };
  if (e.agentId !== undefined) input.agent_id = e.agentId;
  if (e.agentType !== undefined) input.agent_type = e.agentType;
  switch (event) {
    case 'PostToolUse':
      input.tool_response = extras.toolResponse ?? null;
      if (extras.durationMs !== undefined) input.duration_ms = extras.durationMs;
      break;
    case 'PostToolUseFailure':
      input.error = middleTruncate(extras.error ?? '', MAX_ERROR_CHARS);
      if (extras.isInterrupt !== undefined) input.is_interrupt = extras.isInterrupt;
      if (extras.durationMs !== undefined) input.duration_ms = extras.durationMs;
      break;
    case 'PermissionRequest':
      input.permission_suggestions = extras.permissionSuggestions ?? [];
      break;
    case 'PermissionDenied':
      input.reason = extras.reason ?? '';
      break;
    case 'PreToolUse':
      break;
  }
  return input;
}

/** `bubble` is toolgate's own sub-agent mode; Claude Code's hooks know only its six modes. */
function claudePermissionMode(mode: PermissionMode): string {
  return mode === 'bubble' ? 'default' : mode;
}

export function middleTruncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n... [${text.length - max} characters truncated] ...\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep / 2);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}

/** The stdin text. Never throws: BigInts become strings and cycles `"[Circular]"`, so odd tool output cannot crash a call. */
export function serializeHookInput(input: Record<string, unknown>): string {
  try {
    return JSON.stringify(input);
  } catch {
    const stack: unknown[] = [];
    return JSON.stringify(input, function (this: unknown, _key, value: unknown) {
      if (typeof value === 'bigint') return value.toString();
      if (typeof value !== 'object' || value === null) return value;
      while (stack.length > 0 && stack[stack.length - 1] !== this) stack.pop();
      if (stack.includes(value)) return '[Circular]';
      stack.push(value);
      return value;
    });
  }
}
