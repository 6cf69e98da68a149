/**
 * `toolgate worker`: serve tool calls (and durable sessions) for Restate. One process, or a pool of processes sharing
 * one port (`processes > 1`), registered with the Restate admin API under one URL.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getAllBaseTools } from '../registry/base-tools.js';
import type { AnyTool, Tools } from '../tool/tool.js';
import Anthropic from '@anthropic-ai/sdk';
import { createToolRuntime } from '../agent/create-tool-runtime.js';
import { createDurableToolCallBackend } from './durable-tool-call-backend.js';
import { sessionObject } from './durable-session.js';
import { freePort } from './restate-server.js';
import { createRestateToolEngine, defaultAdminUrl } from './restate-tool-engine.js';
import { toolCallService } from './restate-tool-service.js';
import { exitWithPrimary, isPoolProcess, registerDeployment, runWorkerPool, startToolWorkerEndpoint } from './tool-worker.js';

export interface RunWorkerOptions {
  /** The Restate ingress URL (the admin URL is derived from it unless given). */
  readonly restate: string;
  readonly admin?: string;
  readonly concurrency?: number;
  readonly processes?: number;
  /** `host:port` to listen on (default 127.0.0.1 and a free port). */
  readonly listen?: string;
  /** The URL Restate reaches this worker (pool) at; default: the listen address. Behind a load balancer: its URL. */
  readonly advertise?: string;
  readonly workspaces?: readonly string[];
  readonly pool?: string;
  /** The tool pool the sessions of this worker send their calls to (default: the default pool). */
  readonly toolPool?: string;
  /** Modules whose `tools` export (or default export) adds custom tools to the built-ins. */
  readonly toolModules?: readonly string[];
  readonly register?: boolean;
  readonly stateDir?: string;
  /** Also serve durable sessions (the agent loop; needs ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL). */
  readonly sessions?: boolean;
  readonly log?: (line: string) => void;
}

export function parseListen(listen: string | undefined): { host: string; port: number } {
  if (!listen) return { host: '127.0.0.1', port: 0 };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen) ?? /^()()(\d+)$/.exec(listen);
  if (!m) throw new Error(`--listen expects HOST:PORT or PORT, got "${listen}"`);
  const port = Number(m[3]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--listen: invalid port in "${listen}"`);
  return { host: m[1] || m[2] || '127.0.0.1', port };
}

export async function loadWorkerTools(toolModules: readonly string[] = []): Promise<Tools> {
  const tools: AnyTool[] = [...(await getAllBaseTools())];
  for (const tool of await loadCustomTools(toolModules)) {
    const i = tools.findIndex((t) => t.name === tool.name);
    if (i >= 0) tools[i] = tool;
    else tools.push(tool);
  }
  return tools;
}

export async function loadCustomTools(toolModules: readonly string[] = []): Promise<AnyTool[]> {
  const tools: AnyTool[] = [];
  for (const file of toolModules) {
    const mod = (await import(pathToFileURL(path.resolve(file)).href)) as { tools?: unknown; default?: unknown };
    const extra = mod.tools ?? mod.default;
    if (!Array.isArray(extra)) throw new Error(`${file} exports no "tools" array (or default export)`);
    for (const tool of extra as AnyTool[]) {
      if (!tool || typeof tool.name !== 'string' || typeof tool.call !== 'function') throw new Error(`${file}: an entry of "tools" is not a tool`);
      tools.push(tool);
    }
  }
  return tools;
}

/** Runs until SIGINT/SIGTERM. */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const processes = Math.max(1, Math.floor(options.processes ?? 1));
  const listen = parseListen(options.listen);
  const admin = options.admin ?? defaultAdminUrl(options.restate);
  const register = async (port: number) => {
    const uri = options.advertise ?? `http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${port}`;
    if (options.register !== false) {
      await registerDeployment(admin, uri);
      log(`toolgate worker: registered ${uri} with ${admin}`);
    }
    log(`toolgate worker: serving on ${uri} (${processes} process${processes > 1 ? 'es' : ''})`);
  };

  if (processes > 1 && !isPoolProcess()) {
    const port = listen.port === 0 ? await freePort() : listen.port;
    await runWorkerPool({ processes, port, host: listen.host, onReady: register, log });
    return;
  }

  if (isPoolProcess()) exitWithPrimary();
  const tools = await loadWorkerTools(options.toolModules);
  const workspaces = (options.workspaces && options.workspaces.length > 0 ? options.workspaces : [process.cwd()]).map((w) => path.resolve(w));
  const port = isPoolProcess() ? Number(process.env.TOOLGATE_WORKER_PORT) : listen.port;
  const host = isPoolProcess() ? (process.env.TOOLGATE_WORKER_HOST ?? listen.host) : listen.host;
  const endpoint = await startToolWorkerEndpoint({
    host,
    port,
    services: [
      toolCallService({
        tools,
        workspaces,
        pool: options.pool,
        concurrency: options.concurrency,
        workerName: `${os.hostname()}:${process.pid}`,
        stateDir: options.stateDir,
      }),
      ...(options.sessions ? [sessionService(options, admin, await loadCustomTools(options.toolModules))] : []),
    ],
  });
  if (!isPoolProcess()) await register(endpoint.port);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await endpoint.close();
}

/** Durable sessions on this worker: each run gets a headless runtime whose workspace tools go to the tool pool. */
function sessionService(options: RunWorkerOptions, admin: string, customTools: readonly AnyTool[]) {
  const engine = createRestateToolEngine({ ingressUrl: options.restate, adminUrl: admin, pool: options.toolPool });
  const backend = createDurableToolCallBackend({ engine });
  return sessionObject({
    client: () => new Anthropic(),
    createRuntime: (sessionId, request) =>
      createToolRuntime({
        cwd: request.cwd,
        sessionId,
        // Settings of the workspace, not of the account the worker runs under.
        settings: { sources: [...(request.settingSources ?? ['project', 'local'])] },
        mode: request.mode,
        rules: { allow: request.allow, deny: request.deny },
        ...(request.tools ? { builtinTools: request.tools } : {}),
        ...(request.additionalDirectories ? { additionalDirectories: request.additionalDirectories } : {}),
        ...(request.model !== undefined ? { model: request.model } : {}),
        tools: customTools,
        backend,
      }),
  });
}
