/**
 * The question handler tools reach through `context.ui.askQuestion` (AskUserQuestion, ExitPlanMode's approval) and
 * the Messages API client through `context.services.modelClient` (Agent, WebFetch, WebSearch). The agent layer
 * provides both; these declarations are structurally the same as its `QuestionRequest` / `QuestionAnswer`, so the
 * tools never import upward.
 */
import type Anthropic from '@anthropic-ai/sdk';

export interface ToolQuestionRequest {
  readonly kind: 'choice' | 'elicitation' | 'plan-approval';
  readonly questions?: readonly {
    readonly question: string;
    readonly header?: string;
    readonly options: readonly { readonly label: string; readonly description?: string }[];
    readonly multiSelect?: boolean;
  }[];
  readonly message?: string;
  readonly schema?: Record<string, unknown>;
  /** An MCP server's URL-mode elicitation: the page it asks the person to open (shown, never opened for them). */
  readonly url?: string;
  readonly signal: AbortSignal;
}

export type ToolQuestionAnswer =
  | { readonly action: 'accept'; readonly answers?: Record<string, string>; readonly content?: Record<string, unknown> }
  | { readonly action: 'decline' | 'cancel'; readonly message?: string };

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** The Messages API client for tools that need a model (Agent, WebFetch's prompt, WebSearch). */
    readonly modelClient?: Anthropic;
  }
  interface ToolUseUICallbacks {
    /** Asks the person a question (AskUserQuestion, MCP elicitation, plan approval); absent when headless. */
    readonly askQuestion?: (request: ToolQuestionRequest) => Promise<ToolQuestionAnswer>;
  }
}
