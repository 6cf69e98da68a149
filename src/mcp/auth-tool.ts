/**
 * The sign-in tool of a server that needs OAuth (`mcp__<server>__authenticate`, tools/mcp-auth/): this side starts the
 * login (oauth-login.ts through the manager), joins a second call to the login already under way, and checks the
 * authorization URL before anyone sees it — it comes from the server's metadata, so from whoever runs the server:
 * only a plain http(s) URL (elicitation-url.ts's `showableUrl`) is shown; anything else ends the login unseen.
 * The browser is never started for the person here: they are shown the page and open it themselves.
 */
import type { AnyTool } from '../tool/tool.js';
import { createMcpAuthTool, MCP_AUTH_TOOL_SUFFIX, type McpAuthLogin } from '../tools/mcp-auth/index.js';
import { shellQuote } from '../tools/shared/shell-word.js';
import type { McpRemoteServerConfig } from './config.js';
import { showableUrl } from './elicitation-url.js';
import type { McpLoginOptions, McpLoginResult } from './oauth-login.js';
import { buildMcpToolName } from './names.js';

type Login = (options: Omit<McpLoginOptions, 'name' | 'config' | 'store'>) => Promise<McpLoginResult>;

/** The command that logs in to `name` outside a session, quoted for a shell. */
export function loginCommandOf(name: string): string {
  return `toolgate mcp login ${/^[\w.-]+$/.test(name) ? name : shellQuote(name)}`;
}

export function createMcpAuthToolFor(name: string, config: McpRemoteServerConfig, login: Login, pending: Map<string, McpAuthLogin>): AnyTool {
  return createMcpAuthTool({
    serverName: name,
    serverType: config.type,
    toolName: buildMcpToolName(name, MCP_AUTH_TOOL_SUFFIX),
    loginCommand: loginCommandOf(name),
    ...(config.alwaysLoad ? { alwaysLoad: true } : {}),
    startLogin: () => pending.get(name) ?? startLogin(name, login, pending),
  });
}

function startLogin(name: string, login: Login, pending: Map<string, McpAuthLogin>): McpAuthLogin {
  const controller = new AbortController();
  let gotUrl!: (url: string | undefined) => void;
  let noUrl!: (error: unknown) => void;
  const authUrl = new Promise<string | undefined>((resolve, reject) => {
    gotUrl = resolve;
    noUrl = reject;
  });
  const done = login({
    openBrowser: false,
    signal: controller.signal,
    onAuthorizationUrl: (raw) => {
      const url = showableUrl(raw);
      if (url) return gotUrl(url);
      noUrl(new Error(`MCP server "${name}" gave an authorization address that is not a plain http(s) URL; it was refused unseen`));
      controller.abort();
    },
  })
    .then(
      () => gotUrl(undefined),
      (error: unknown) => {
        noUrl(error);
        throw error;
      },
    )
    .finally(() => pending.delete(name));
  // Whoever awaits them sees the outcome; a login left to finish in the background must not be an unhandled rejection.
  done.catch(() => {});
  authUrl.catch(() => {});
  const entry: McpAuthLogin = { authUrl, done, cancel: () => controller.abort() };
  pending.set(name, entry);
  return entry;
}
