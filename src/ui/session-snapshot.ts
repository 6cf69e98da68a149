/**
 * The shapes of an interactive session's state as the session store (session-store.ts) hands it out: the transcript's
 * items, the dialogs waiting for the person, the background tasks, the slash menu's commands, and the snapshot that
 * holds them. The Ink app and the plain-text printer draw from these; session-store.ts re-exports them.
 */
import type { PermissionAnswer, QuestionAnswer, QuestionRequest, RuntimePermissionRequest } from '../agent/types.js';
import type { ToolUseOutcome } from '../execution/outcome.js';
import type { PermissionMode } from '../tool/permission-types.js';
import type { AnyTool, ToolProgressData, ToolUseBlock, ToolViews } from '../tool/tool.js';

export type Item =
  | { readonly kind: 'user'; readonly id: number; readonly text: string }
  | { readonly kind: 'assistant'; readonly id: number; readonly text: string }
  | { readonly kind: 'notice'; readonly id: number; readonly text: string; readonly tone: 'info' | 'error' | 'warn' }
  /** A teammate's message as the lead received it (agent teams): drawn apart from the person's and the model's words. */
  | { readonly kind: 'teammate'; readonly id: number; readonly from: string; readonly summary?: string; readonly text: string }
  | ToolItem;

export interface ToolItem {
  readonly kind: 'tool';
  readonly id: number;
  readonly block: ToolUseBlock;
  readonly tool?: AnyTool;
  readonly views?: ToolViews;
  readonly progress: readonly ToolProgressData[];
  /** When it started running (reset when its permission prompt is answered: waiting is not running). */
  readonly startedAt: number;
  /** Its permission prompt is open: it waits for the person, it does not run. */
  readonly waiting?: boolean;
  readonly outcome?: ToolUseOutcome;
}

/** A slash command the menu offers when `/` is typed. */
export interface MenuCommand {
  readonly name: string;
  readonly description: string;
  readonly argumentHint?: string;
}

export type Dialog =
  | {
      readonly kind: 'permission';
      readonly id: number;
      readonly request: RuntimePermissionRequest;
      readonly views?: ToolViews;
      readonly resolve: (answer: PermissionAnswer) => void;
    }
  | { readonly kind: 'question'; readonly id: number; readonly request: QuestionRequest; readonly resolve: (answer: QuestionAnswer) => void };

export interface BackgroundTask {
  readonly id: string;
  readonly label: string;
}

export interface SessionSnapshot {
  /** Everything written for good, oldest first (the Ink app hands it to `<Static>`). */
  readonly finished: readonly Item[];
  readonly live: readonly Item[];
  readonly dialogs: readonly Dialog[];
  readonly busy: boolean;
  readonly mode: PermissionMode;
  readonly model: string;
  readonly tasks: readonly BackgroundTask[];
  /** Bumped by `/clear`: the app remounts `<Static>` under a new key. */
  readonly epoch: number;
  /** Messages typed while a turn runs, sent when it ends. */
  readonly queued: readonly string[];
  /** Text to put in the prompt (queued messages taken back by Esc, a cleared prompt); `seq` tells a new one apart. */
  readonly draft?: { readonly text: string; readonly seq: number };
  /** What `/` offers: the session's commands, then custom commands and skills. */
  readonly commands: readonly MenuCommand[];
}
