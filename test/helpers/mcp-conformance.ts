/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`), the judge of toolgate's MCP server and client:
 * installed on demand from npm into a cache folder outside the repository (never a dependency), run as a child process.
 *
 * Pinned to 0.1.13: 0.1.14 and later import `fs.globSync`, which Node 20 (the house's minimum) does not have, so they do
 * not start here.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const CONFORMANCE_VERSION = '0.1.13';

/** The suite's entry script, installing it first when it is not in the cache; or why it cannot be had here. */
export function ensureConformance(): { bin: string } | { skip: string } {
  const dir = path.join(os.homedir(), '.cache', 'toolgate-test', 'mcp-conformance');
  const pkg = path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance');
  const bin = path.join(pkg, 'dist', 'index.js');
  const installed = () => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version?: string }).version === CONFORMANCE_VERSION;
    } catch {
      return false;
    }
  };
  if (!installed()) {
    try {
      fs.mkdirSync(dir, { recursive: true });
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', dir, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`], { stdio: 'pipe', timeout: 300_000 });
    } catch (error) {
      return { skip: `@modelcontextprotocol/conformance ${CONFORMANCE_VERSION} could not be installed from the npm registry (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
    }
  }
  try {
    execFileSync(process.execPath, [bin, '--version'], { stdio: 'pipe', timeout: 60_000 });
  } catch {
    return { skip: `@modelcontextprotocol/conformance ${CONFORMANCE_VERSION} was installed but does not start on this Node (${process.version})` };
  }
  return { bin };
}

export interface ConformanceCheck {
  readonly id: string;
  readonly name: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

export interface ScenarioOutcome {
  readonly scenario: string;
  readonly checks: readonly ConformanceCheck[];
  /** The checks that failed (FAILURE), by id with their message. */
  readonly failures: readonly string[];
  readonly stdout: string;
  readonly stderr: string;
}

function run(bin: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout, stderr) => resolve({ stdout, stderr }));
  });
}

/** The `checks.json` files the suite wrote under `dir` (one per scenario run). */
function readChecks(dir: string): ConformanceCheck[] {
  const out: ConformanceCheck[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (path.basename(entry) === 'checks.json') out.push(...(JSON.parse(fs.readFileSync(path.join(dir, entry), 'utf8')) as ConformanceCheck[]));
  }
  return out;
}

function outcome(scenario: string, checks: ConformanceCheck[], stdout: string, stderr: string): ScenarioOutcome {
  const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? c.name}`);
  return { scenario, checks, failures, stdout, stderr };
}

/** One server scenario against the MCP server at `url`. */
export async function runServerScenario(bin: string, url: string, scenario: string, timeoutMs = 120_000): Promise<ScenarioOutcome> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-conformance-'));
  try {
    const { stdout, stderr } = await run(bin, ['server', '--url', url, '--scenario', scenario, '-o', out], process.env, timeoutMs);
    return outcome(scenario, readChecks(out), stdout, stderr);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** One client scenario: the suite starts its server and runs `command` (the server's URL appended). */
export async function runClientScenario(bin: string, command: string, scenario: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 120_000): Promise<ScenarioOutcome> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-conformance-'));
  try {
    const { stdout, stderr } = await run(bin, ['client', '--command', command, '--scenario', scenario, '--timeout', '60000', '-o', out], env, timeoutMs);
    return outcome(scenario, readChecks(out), stdout, stderr);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * A pass-through proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every request: the suite's server
 * runner cannot send a header, and `toolgate mcp serve --http` refuses a request without its token. The Host header
 * the suite sends for the proxy is rewritten to the server's; any other Host (the DNS-rebinding scenario's) goes
 * through as sent, so the server's own check is what the suite judges.
 */
export async function startBearerProxy(targetUrl: string, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(targetUrl);
  let own = '';
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === own) headers.host = target.host;
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  own = `127.0.0.1:${port}`;
  return {
    url: `http://${own}${target.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
