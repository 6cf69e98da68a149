/**
 * `mcp__<server>__authenticate`: the tool an MCP server that needs an OAuth sign-in offers in place of its own tools
 * (Claude Code's name and shape: an empty input; a result with `status` `auth_url` | `error` | `unsupported`, the
 * `authUrl` and a message). The person completes the sign-in, never the model:
 * - with someone to ask (the terminal session, or the Agent SDK face when the program gave `onElicitation`), the
 *   authorization page is put in front of them as a URL-mode elicitation: shown, never opened for them;
 * - headless, the call fails at once with the exact command that logs in (`toolgate mcp login NAME`).
 * The login itself (discovery, registration, PKCE, the loopback redirect, the token store) is the MCP layer's: it
 * reaches this tool as an `McpAuthService`, so the tool stays below it. When the login finishes, the MCP layer swaps
 * this tool for the server's real tools at the next pool refresh.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { AnyTool } from '../../tool/tool.js';
import type { ToolQuestionAnswer, ToolQuestionRequest } from '../shared/questions.js';
import { mcpAuthHeadlessMessage, mcpAuthPrompt, mcpAuthQuestion, MCP_AUTH_TOOL_SUFFIX } from './prompt.js';

export { MCP_AUTH_TOOL_SUFFIX } from './prompt.js';

/** One sign-in under way (started by this call or joined: a second call shows the same page). */
export interface McpAuthLogin {
  /** The authorization page (an http(s) URL the MCP layer checked), or undefined when no browser step was needed. */
  readonly authUrl: Promise<string | undefined>;
  /** Settles when the sign-in is over: the tokens are stored and the server's tools are on their way. */
  readonly done: Promise<void>;
  cancel(): void;
}

/** What the MCP layer gives the tool for one server. */
export interface McpAuthService {
  /** The server's name as configured (what the person sees). */
  readonly serverName: string;
  readonly serverType: 'http' | 'sse';
  /** The full tool name (`mcp__<server>__authenticate`, normalized as the server's other tools). */
  readonly toolName: string;
  /** The command a person runs to log in outside a session. */
  readonly loginCommand: string;
  readonly alwaysLoad?: boolean;
  startLogin(): McpAuthLogin;
}

export const mcpAuthInputSchema = z.strictObject({});
export type McpAuthInput = z.infer<typeof mcpAuthInputSchema>;

export interface McpAuthOutput {
  readonly status: 'auth_url' | 'error' | 'unsupported';
  readonly message: string;
  readonly authUrl?: string;
  readonly serverName: string;
}

export function createMcpAuthTool(service: McpAuthService): AnyTool {
  const { serverName } = service;
  const description = mcpAuthPrompt(serverName, service.serverType);
  return buildTool<typeof mcpAuthInputSchema, McpAuthOutput>({
    name: service.toolName,
    inputSchema: mcpAuthInputSchema,
    mcpInfo: { serverName: service.toolName.split('__')[1] ?? serverName, toolName: MCP_AUTH_TOOL_SUFFIX },
    isMcp: true,
    ...(service.alwaysLoad ? { alwaysLoad: true } : {}),
    searchHint: `sign in log in oauth authenticate ${serverName}`,
    maxResultSizeChars: 10_000,
    prompt: async () => description,
    userFacingName: () => `${serverName} - authenticate (MCP)`,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    // The person is asked anyway (the sign-in page is theirs to approve): no permission prompt in front of it.
    checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
    toAutoClassifierInput: () => service.toolName,
    async call(_input, context) {
      const ask = context.ui?.askQuestion;
      if (!ask) throw new Error(mcpAuthHeadlessMessage(serverName, service.loginCommand));
      return { data: await signIn(service, ask, context.abortController.signal) };
    },
    mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: data.message,
      ...(data.status === 'auth_url' ? {} : { is_error: true }),
    }),
    renderToolUseMessage: () => `Authenticate ${serverName} MCP server`,
    renderToolResultMessage: (data) => (data.authUrl ? `${data.message.split('\n')[0]} ${data.authUrl}` : data.message),
    loadViews: () => import('./render.js').then((m) => m.mcpAuthViews),
  });
}

type Ask = (request: ToolQuestionRequest) => Promise<ToolQuestionAnswer>;

/** Starts (or joins) the login, shows its page to the person, and says how it went. */
async function signIn(service: McpAuthService, ask: Ask, signal: AbortSignal): Promise<McpAuthOutput> {
  const { serverName } = service;
  const login = service.startLogin();
  const onAbort = () => login.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    let authUrl: string | undefined;
    try {
      authUrl = await login.authUrl;
    } catch (error) {
      return { status: 'error', serverName, message: `The sign-in to MCP server "${serverName}" could not start: ${messageOf(error)}. Ask the user to run \`${service.loginCommand}\`.` };
    }
    if (authUrl === undefined) {
      await login.done;
      return { status: 'auth_url', serverName, message: `MCP server "${serverName}" signed in without a browser step. ${TOOLS_NOW}` };
    }
    const question = new AbortController();
    const stopAsking = () => question.abort();
    signal.addEventListener('abort', stopAsking, { once: true });
    const outcome = await Promise.race([
      ask({ kind: 'elicitation', message: mcpAuthQuestion(serverName), url: authUrl, signal: question.signal }).then(
        (answer) => ({ kind: 'answer' as const, answer }),
        (error: unknown) => ({ kind: 'answer' as const, answer: { action: 'cancel' as const, message: messageOf(error) } }),
      ),
      login.done.then(
        () => ({ kind: 'done' as const }),
        (error: unknown) => ({ kind: 'failed' as const, error }),
      ),
    ]);
    signal.removeEventListener('abort', stopAsking);
    if (outcome.kind !== 'answer') question.abort();
    if (outcome.kind === 'done') return { status: 'auth_url', serverName, authUrl, message: `The person signed in to MCP server "${serverName}". ${TOOLS_NOW}` };
    if (outcome.kind === 'failed') return { status: 'error', serverName, authUrl, message: `The sign-in to MCP server "${serverName}" failed: ${messageOf(outcome.error)}.` };
    if (outcome.answer.action !== 'accept') {
      login.cancel();
      return { status: 'error', serverName, message: `The person declined the sign-in to MCP server "${serverName}". Do not start it again unless they ask; go on without its tools.` };
    }
    return {
      status: 'auth_url',
      serverName,
      authUrl,
      message: `The person was shown this page to authorize MCP server "${serverName}":\n\n${authUrl}\n\nOnce they finish in the browser, the server's own tools replace this one; until then they are not available.`,
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const TOOLS_NOW = "Its own tools are now available in place of this one: call those instead of this tool.";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
