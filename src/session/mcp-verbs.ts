/**
 * The session's MCP verbs (`session.mcp`): status, add / remove / toggle / reconnect a server, log in and out. Each
 * change goes through `changeMcp`, after which the tool pool is read again, so it holds from the next request. The
 * start-up of the servers is `mcp.ts`; these verbs only change a started session's manager.
 */
import type { McpServerConfig } from '../mcp/config.js';
import type { McpClientManager, McpServerStatus } from '../mcp/manager.js';
import type { McpLoginResult } from '../mcp/oauth-login.js';
import { mcpStatusOf, type SessionMcpServer } from './mcp.js';
import type { SessionParts } from './setup.js';

/** A change to the MCP servers, then the tool pool read again: it holds from the next request. */
export async function changeMcp<T>({ mcp, runtime }: SessionParts, change: (mcp: McpClientManager) => T | Promise<T>): Promise<T> {
  if (!mcp) throw new Error('this session has no MCP servers (start it with some: settings, .mcp.json, its options)');
  const result = await change(mcp);
  await runtime.refreshTools();
  return result;
}

export class SessionMcp {
  /**
   * `start` is the session's own (it sets the session up once); `durable` says the session runs on the workers, whose
   * MCP servers this process does not hold.
   */
  constructor(
    private readonly start: () => Promise<SessionParts>,
    private readonly durable: () => boolean,
  ) {}

  /** The servers in the Agent SDK's words (init, `mcpServerStatus()`); none on the durable backend. */
  async status(): Promise<SessionMcpServer[]> {
    return this.durable() ? [] : mcpStatusOf((await this.start()).mcp);
  }

  /** The servers as the MCP layer reports them (logins included); undefined when the session has none. */
  async servers(): Promise<McpServerStatus[] | undefined> {
    return (await this.start()).mcp?.status();
  }

  /** Logs in to an HTTP/SSE server (`onUrl` shows the browser's URL); its tools join from the next request. */
  async login(name: string, onUrl: (url: string) => void): Promise<McpLoginResult> {
    return changeMcp(await this.start(), (mcp) => mcp.login(name, { onAuthorizationUrl: onUrl }));
  }

  /** Forgets a server's login; true when there was one. */
  async logout(name: string): Promise<boolean> {
    return changeMcp(await this.start(), (mcp) => mcp.logout(name));
  }

  /** A server joins the session. */
  async add(name: string, config: McpServerConfig): Promise<void> {
    return changeMcp(await this.start(), (mcp) => mcp.add(name, config));
  }

  /** A server leaves the session. */
  async remove(name: string): Promise<void> {
    return changeMcp(await this.start(), (mcp) => mcp.remove(name));
  }

  /** Turns a server off or on for this session. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    return changeMcp(await this.start(), (mcp) => mcp.setEnabled(name, enabled));
  }

  /** A server's connection starts afresh. */
  async reconnect(name: string): Promise<void> {
    return changeMcp(await this.start(), (mcp) => mcp.reconnect(name));
  }
}
