/**
 * Where toolgate keeps what an MCP server's OAuth login produced: the client registration, the tokens (with the time
 * the access token expires) and the discovery state. One file per server, keyed by its name and URL (the same name
 * pointing somewhere else is another server), in `$XDG_STATE_HOME/toolgate/mcp-oauth/` — the base the sessions use —
 * folder 0700, file 0600, written atomically.
 *
 * Every token read or written is registered as a known secret (`registerSecretValues`): a server or a tool that
 * prints one finds it replaced by `[REDACTED:MCP_OAUTH_TOKEN]` before the model or a transcript sees it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { stateDirectory } from '../agent/session-dir.js';
import { registerSecretValues, type SecretEntry } from '../execution/redaction.js';
import { atomicWriteFile } from '../tools/shared/atomic-write.js';

/** Tokens as stored: the server's answer, stamped by the SDK with `issuer`, plus when the access token expires. */
export type StoredTokens = OAuthTokens & { readonly expires_at?: number };

export interface McpOAuthRecord {
  readonly server: string;
  readonly url: string;
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: StoredTokens;
  readonly discovery?: OAuthDiscoveryState;
  /** The scope the server asked for with `insufficient_scope` (a step-up): the next login asks for it too. */
  readonly scope?: string;
  readonly updatedAt?: string;
}

export const MCP_OAUTH_SECRET_LABEL = 'MCP_OAUTH_TOKEN';

/** The default folder: beside the sessions, in the user's state directory. */
export function defaultMcpOAuthDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDirectory(env), 'mcp-oauth');
}

export class McpOAuthStore {
  constructor(readonly dir: string = defaultMcpOAuthDir()) {}

  /** The file of one server: a readable part of its name, and a hash of name and URL that keeps servers apart. */
  fileFor(server: string, url: string): string {
    const hash = createHash('sha256').update(`${server}\u0000${url}`).digest('hex').slice(0, 16);
    const readable = server.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40) || 'server';
    return path.join(this.dir, `${readable}-${hash}.json`);
  }

  /** The record, or an empty one. A file that cannot be read or parsed counts as no login (it is rewritten on the next save). */
  read(server: string, url: string): McpOAuthRecord {
    let text: string;
    try {
      text = fs.readFileSync(this.fileFor(server, url), 'utf8');
    } catch {
      return { server, url };
    }
    try {
      const parsed = JSON.parse(text) as McpOAuthRecord;
      if (parsed === null || typeof parsed !== 'object' || parsed.server !== server || parsed.url !== url) return { server, url };
      registerTokens(parsed);
      return parsed;
    } catch {
      return { server, url };
    }
  }

  /** Applies `change` to the stored record and writes it (0600, atomically). */
  async update(server: string, url: string, change: (record: McpOAuthRecord) => McpOAuthRecord): Promise<McpOAuthRecord> {
    const next = { ...change(this.read(server, url)), server, url, updatedAt: new Date().toISOString() };
    registerTokens(next);
    this.ensureDir();
    const file = this.fileFor(server, url);
    await atomicWriteFile(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, confineTo: [fs.realpathSync(this.dir)] });
    // An existing file keeps its mode through an atomic write: a token file someone widened is narrowed again.
    fs.chmodSync(file, 0o600);
    return next;
  }

  /** Removes everything stored for the server; true when there was something. */
  remove(server: string, url: string): boolean {
    try {
      fs.unlinkSync(this.fileFor(server, url));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  private ensureDir(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is filtered by the umask, and an existing folder keeps its own: set it.
    fs.chmodSync(this.dir, 0o700);
  }
}

/** Access and refresh tokens (and a client secret) become known secrets, redacted from every tool result from now on. */
function registerTokens(record: McpOAuthRecord): void {
  const entries: SecretEntry[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.length > 0) entries.push({ label: MCP_OAUTH_SECRET_LABEL, value, named: true });
  };
  add(record.tokens?.access_token);
  add(record.tokens?.refresh_token);
  add(record.tokens?.id_token);
  add((record.client as { client_secret?: unknown } | undefined)?.client_secret);
  if (entries.length > 0) registerSecretValues(entries);
}

/** When a token answer's `expires_in` runs out, in ms since the epoch (undefined when the server did not say). */
export function expiryOf(tokens: OAuthTokens, now = Date.now()): number | undefined {
  return typeof tokens.expires_in === 'number' && Number.isFinite(tokens.expires_in) && tokens.expires_in > 0 ? now + tokens.expires_in * 1000 : undefined;
}
