/**
 * In-process MCP tools, the Agent SDK's way: `tool(name, description, zodShape, handler)` and
 * `createSdkMcpServer({ name, version, tools })`. A session reaches the server through an in-memory transport, so its
 * tools are ordinary MCP tools of the session — named `mcp__<server>__<tool>`, behind the permission engine and the
 * hooks like every other tool. Each session gets a server object of its own, made from the same definitions: one
 * `createSdkMcpServer()` result can serve any number of concurrent sessions.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { McpInProcessServerConfig } from '../mcp/config.js';
import type { McpSdkServerConfigWithInstance } from './options.js';

/** A Zod object shape (zod 3 or 4): `{ a: z.number() }`. */
export type AnyZodRawShape = Record<string, unknown>;

/** The handler's arguments: the shape's parsed values. */
export type InferShape<T extends AnyZodRawShape> = { [K in keyof T]: T[K] extends { _output: infer O } ? O : never } & {};

export interface SdkMcpToolDefinition<Schema extends AnyZodRawShape = AnyZodRawShape> {
  name: string;
  description: string;
  inputSchema: Schema;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  handler: (args: InferShape<Schema>, extra: unknown) => Promise<CallToolResult>;
}

/** One in-process tool. */
export function tool<Schema extends AnyZodRawShape>(
  name: string,
  description: string,
  inputSchema: Schema,
  handler: (args: InferShape<Schema>, extra: unknown) => Promise<CallToolResult>,
  extras?: { annotations?: ToolAnnotations; _meta?: Record<string, unknown>; alwaysLoad?: boolean },
): SdkMcpToolDefinition<Schema> {
  const meta = extras?.alwaysLoad ? { ...extras._meta, 'anthropic/alwaysLoad': true } : extras?._meta;
  return { name, description, inputSchema, handler, ...(extras?.annotations ? { annotations: extras.annotations } : {}), ...(meta ? { _meta: meta } : {}) };
}

export interface CreateSdkMcpServerOptions {
  name: string;
  version?: string;
  instructions?: string;
  // Each tool has its own shape.
  tools?: SdkMcpToolDefinition<any>[];
  alwaysLoad?: boolean;
  timeout?: number;
}

/** Where a session finds how to make a fresh server of this definition (not part of the Agent SDK's shape). */
const FACTORY = Symbol.for('toolgate.agent-sdk.mcp-server-factory');

interface WithFactory {
  [FACTORY]?: { createServer: () => McpServer; alwaysLoad: boolean };
}

/** An in-process MCP server for `options.mcpServers`. */
export function createSdkMcpServer(options: CreateSdkMcpServerOptions): McpSdkServerConfigWithInstance {
  if (typeof options?.name !== 'string' || options.name.trim() === '') throw new TypeError('createSdkMcpServer: "name" must be a non-empty string');
  const tools = options.tools ?? [];
  for (const [i, t] of tools.entries()) {
    if (typeof t?.name !== 'string' || typeof t.handler !== 'function') throw new TypeError(`createSdkMcpServer: tools[${i}] is not a tool() definition`);
  }
  const createServer = (): McpServer => {
    const server = new McpServer({ name: options.name, version: options.version ?? '1.0.0' }, { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) });
    for (const t of tools) {
      server.registerTool(
        t.name,
        { description: t.description, inputSchema: t.inputSchema as never, ...(t.annotations ? { annotations: t.annotations } : {}), ...(t._meta ? { _meta: t._meta } : {}) },
        ((args: unknown, extra: unknown) => t.handler(args as never, extra)) as never,
      );
    }
    return server;
  };
  const config: McpSdkServerConfigWithInstance & WithFactory = {
    type: 'sdk',
    name: options.name,
    instance: createServer(),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  };
  Object.defineProperty(config, FACTORY, { value: { createServer, alwaysLoad: options.alwaysLoad === true }, enumerable: false });
  return config;
}

/**
 * An `sdk` entry of `options.mcpServers` as the MCP layer's in-process config. One made by `createSdkMcpServer` gets a
 * fresh server per session; a server object a program built itself can be connected once only (a second session
 * using the same object is refused by the MCP SDK, and that server is reported as failed).
 */
export function inProcessConfig(entry: McpSdkServerConfigWithInstance): McpInProcessServerConfig {
  const made = (entry as WithFactory)[FACTORY];
  if (made) return { type: 'sdk', createServer: made.createServer, ...(made.alwaysLoad ? { alwaysLoad: true } : {}) };
  if (!entry.instance || typeof (entry.instance as { connect?: unknown }).connect !== 'function') {
    throw new TypeError(`options.mcpServers.${entry.name}: an "sdk" server needs an "instance" (use createSdkMcpServer)`);
  }
  return { type: 'sdk', createServer: () => entry.instance };
}
