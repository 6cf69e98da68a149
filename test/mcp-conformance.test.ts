/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, installed on demand outside the repository) judges
 * toolgate's MCP server (`toolgate mcp serve --http`, the real CLI) and its MCP client (McpConnection, driven by
 * test/fixtures/mcp-conformance-client.ts), all on the loopback.
 *
 * Server: the scenarios that apply to a tools-only server whose tools are its own. The others test the suite's
 * fixture server ("implement tool `test_simple_text`…", resources, prompts, logging, completion, sampling): toolgate
 * serves the tool pool, not those fixtures, so they do not apply (docs/security.md and the MCP doc list them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from './helpers/cli.js';
import { ensureConformance, runClientScenario, runServerScenario, startBearerProxy, type ScenarioOutcome } from './helpers/mcp-conformance.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 600_000 });

const suite = ensureConformance();
const skip = 'skip' in suite ? suite.skip : undefined;
if (skip) console.warn(`mcp-conformance: skipped: ${skip}`);
const bin = 'bin' in suite ? suite.bin : '';

/**
 * The server scenarios that apply to a tools-only server serving its own tools. server-sse-polling calls a tool the
 * server does not have: it passes only when that is a JSON-RPC error (an isError result fails it).
 */
const SERVER_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-polling', 'server-sse-multiple-streams', 'dns-rebinding-protection'] as const;

function passed(outcome: ScenarioOutcome): void {
  expect(outcome.checks.length, `${outcome.scenario} ran no checks:\n${outcome.stdout}\n${outcome.stderr}`).toBeGreaterThan(0);
  expect(outcome.failures, outcome.scenario).toEqual([]);
}

describe.skipIf(skip !== undefined)('conformance: toolgate mcp serve --http', () => {
  let root: string;
  let child: ChildProcess;
  let proxy: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'toolgate-conformance-serve-'));
    const token = 'conformance-token';
    child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'mcp', 'serve', '--http', '--cwd', root], {
      env: { ...process.env, HOME: root, XDG_STATE_HOME: path.join(root, 'state'), TOOLGATE_MCP_TOKEN: token },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`toolgate mcp serve exited: ${err}`)));
    });
    proxy = await startBearerProxy(url, token);
  });
  afterAll(async () => {
    await proxy?.close();
    child?.kill();
    rmSync(root, { recursive: true, force: true });
  });

  for (const scenario of SERVER_SCENARIOS) {
    it(`passes ${scenario}`, async () => passed(await runServerScenario(bin, proxy.url, scenario)));
  }
});

/**
 * Every client scenario the suite's own example client (examples/clients/typescript/everything-client.ts at the
 * pinned version) passes. The suite's servers name themselves `localhost` in their URLs and metadata (not ours to change):
 * the resource URL checks need the name they publish, so the client is given that URL as it is.
 */
const CLIENT_SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/resource-mismatch',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
] as const;

describe.skipIf(skip !== undefined)('conformance: toolgate\'s MCP client', () => {
  const command = `${process.execPath} --import tsx ${path.join(repoRoot, 'test/fixtures/mcp-conformance-client.ts')}`;
  for (const scenario of CLIENT_SCENARIOS) {
    it(`passes ${scenario}`, async () => passed(await runClientScenario(bin, command, scenario)));
  }
  // The entries `toolgate mcp add` writes, read back as a session reads them: the key (or secret) by reference only.
  for (const scenario of ['auth/client-credentials-jwt', 'auth/client-credentials-basic'] as const) {
    it(`passes ${scenario} with the entry toolgate mcp add wrote`, async () => passed(await runClientScenario(bin, command, scenario, { ...process.env, TOOLGATE_CONFORMANCE_VIA_MCP_ADD: '1' })));
  }
});
