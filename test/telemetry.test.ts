/**
 * OpenTelemetry, end to end: a session (the real Anthropic SDK against the scripted server, real tools) with
 * telemetry switched on the way Claude Code's is, exporting over OTLP http/json to a receiver on 127.0.0.1; the
 * metrics and events that arrive are checked by name, attributes and value. With telemetry off nothing reaches the
 * receiver and the OpenTelemetry SDK is not even loaded (a spawned `toolgate run`, its module resolutions recorded).
 */
import Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../src/agent/create-tool-runtime.js';
import { costOf } from '../src/agent/pricing.js';
import { query } from '../src/agent/query.js';
import type { ToolRuntimeOptions } from '../src/agent/types.js';
import { startScriptedServer, type ScriptedServer } from '../src/testing/index.js';
import { repoRoot } from './helpers/cli.js';
import { startOtlpReceiver, type AttributeValue, type OtlpReceiver } from './helpers/otlp-receiver.js';
import { contextOf } from '../src/agent/runtime-context.js';

let dir: string;
let model: ScriptedServer | undefined;
let receiver: OtlpReceiver;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-otel-'));
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

const MODEL = 'claude-sonnet-4-6';
const otelEnv = (extra: Record<string, string> = {}) => ({
  CLAUDE_CODE_ENABLE_TELEMETRY: '1',
  OTEL_METRICS_EXPORTER: 'otlp',
  OTEL_LOGS_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer otlp-secret-4711',
  OTEL_RESOURCE_ATTRIBUTES: 'team.id=platform,cost_center=eng-123',
  // Long intervals: everything arrives with the flush at dispose(), not on a timer.
  OTEL_METRIC_EXPORT_INTERVAL: '600000',
  OTEL_LOGS_EXPORT_INTERVAL: '600000',
  ...extra,
});

/** One session: Write a new file, Edit it (asked, allowed once), a failing Read, a denied Bash; then the answer. */
async function session(env: Record<string, string>, runtimeOptions: Partial<ToolRuntimeOptions> = {}) {
  const file = path.join(dir, 'a.ts');
  model = await startScriptedServer([
    {
      content: [
        { type: 'tool_use', name: 'Write', input: { file_path: file, content: 'const a = 1;\nconst b = 2;\nconst c = 3;\n' } },
        { type: 'tool_use', name: 'Edit', input: { file_path: file, old_string: 'const b = 2;', new_string: 'const b = 20;' } },
        { type: 'tool_use', name: 'Read', input: { file_path: path.join(dir, 'missing.txt') } },
        { type: 'tool_use', name: 'Bash', input: { command: 'rm -rf /tmp/nothing-here' } },
      ],
      usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 50 },
    },
    { content: [{ type: 'text', text: 'done' }], usage: { input_tokens: 2000, output_tokens: 10 } },
  ]);
  const runtime = await createToolRuntime({
    cwd: dir,
    sessionId: 'otel-session-1',
    sessionDir: path.join(dir, 'session'),
    settings: { sources: [], object: { env } },
    rules: { allow: ['Write', 'Read'], deny: ['Bash(rm:*)'] },
    onPermissionRequest: async () => ({ behavior: 'allow' }),
    ...runtimeOptions,
  });
  try {
    for await (const event of query({ runtime, client: new Anthropic({ apiKey: 'sk-test', baseURL: model.url }), prompt: 'please change b (secret plan 93)', model: MODEL })) {
      if (event.type === 'result') expect(event.result.stopReason).toBe('end_turn');
    }
  } finally {
    await runtime.dispose();
  }
}

const events = (name: string) => receiver.events.filter((e) => e.body === `claude_code.${name}`);
/** The attributes of each event of a kind, by tool name. */
const byTool = (name: string): Record<string, Record<string, AttributeValue>> => Object.fromEntries(events(name).map((e) => [String(e.attributes.tool_name), e.attributes]));

describe('telemetry on (CLAUDE_CODE_ENABLE_TELEMETRY=1, OTLP http/json)', () => {
  it('exports Claude Code’s metrics and events: sessions, tokens, cost, lines, edit decisions, tool decisions and results, API requests', async () => {
    await session(otelEnv());
    expect(receiver.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/metrics', '/v1/logs']));
    expect(receiver.requests.every((r) => r.headers.authorization === 'Bearer otlp-secret-4711' && r.contentType === 'application/json')).toBe(true);

    // Metrics
    const standard = { 'session.id': 'otel-session-1' };
    expect(receiver.sum('claude_code.session.count', { ...standard, start_type: 'fresh' })).toBe(1);
    expect(receiver.sum('claude_code.token.usage', { type: 'input', model: MODEL, query_source: 'main' })).toBe(3000);
    expect(receiver.sum('claude_code.token.usage', { type: 'output', model: MODEL })).toBe(110);
    expect(receiver.sum('claude_code.token.usage', { type: 'cacheRead', model: MODEL })).toBe(50);
    const cost = costOf(MODEL, { input_tokens: 3000, output_tokens: 110, cache_read_input_tokens: 50, cache_creation_input_tokens: 0 });
    expect(receiver.sum('claude_code.cost.usage', { model: MODEL })).toBeCloseTo(cost, 10);
    expect(receiver.points.find((p) => p.metric === 'claude_code.cost.usage')?.unit).toBe('USD');
    // Write: 3 lines added; Edit: one line replaced.
    expect(receiver.sum('claude_code.lines_of_code.count', { type: 'added' })).toBe(4);
    expect(receiver.sum('claude_code.lines_of_code.count', { type: 'removed' })).toBe(1);
    expect(receiver.sum('claude_code.code_edit_tool.decision', { tool_name: 'Write', decision: 'accept', source: 'config', language: 'TypeScript' })).toBe(1);
    expect(receiver.sum('claude_code.code_edit_tool.decision', { tool_name: 'Edit', decision: 'accept', source: 'user_temporary', language: 'TypeScript' })).toBe(1);
    expect(receiver.points.every((p) => p.attributes['session.id'] === 'otel-session-1' && p.attributes['prompt.id'] === undefined)).toBe(true);
    expect(receiver.points[0]!.resource).toMatchObject({ 'service.name': 'toolgate', 'team.id': 'platform', cost_center: 'eng-123' });

    // Events
    const [prompt] = events('user_prompt');
    expect(prompt!.attributes).toMatchObject({ 'event.name': 'user_prompt', 'session.id': 'otel-session-1', prompt_length: 'please change b (secret plan 93)'.length });
    expect(prompt!.attributes.prompt).toBeUndefined();
    const promptId = prompt!.attributes['prompt.id'];
    expect(promptId).toMatch(/^[0-9a-f-]{36}$/);

    const decisions = byTool('tool_decision');
    expect(decisions.Write).toMatchObject({ decision: 'accept', source: 'config', rule: 'Write', 'prompt.id': promptId });
    expect(decisions.Edit).toMatchObject({ decision: 'accept', source: 'user_temporary', decision_layer: 'prompt' });
    expect(decisions.Bash).toMatchObject({ decision: 'reject', source: 'config', decision_layer: 'denyRule', rule: 'Bash(rm:*)' });

    const results = byTool('tool_result');
    expect(results.Write).toMatchObject({ success: 'true', decision_type: 'accept', decision_source: 'config', tool_input_size_bytes: expect.any(Number) });
    expect(results.Write!.duration_ms).toEqual(expect.any(Number));
    expect(results.Write!.tool_result_size_bytes).toBeGreaterThan(0);
    expect(results.Bash).toMatchObject({ success: 'false', error_type: 'permission_denied', decision_type: 'reject' });
    expect(results.Read).toMatchObject({ success: 'false', decision_source: 'config' });
    expect(results.Read!.error_type).toEqual(expect.any(String));
    // Content stays out without OTEL_LOG_TOOL_DETAILS.
    expect(Object.values(results).every((r) => r!.tool_input === undefined && r!.error === undefined)).toBe(true);

    const requests = events('api_request');
    expect(requests.map((e) => e.attributes.input_tokens)).toEqual([1000, 2000]);
    expect(requests[0]!.attributes).toMatchObject({ model: MODEL, output_tokens: 100, cache_read_tokens: 50, query_source: 'main', 'prompt.id': promptId });
    expect(requests[0]!.attributes.cost_usd).toBeCloseTo(costOf(MODEL, { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 50, cache_creation_input_tokens: 0 }), 10);
    expect(requests[0]!.attributes.duration_ms).toEqual(expect.any(Number));
    const sequence = receiver.events.map((e) => Number(e.attributes['event.sequence']));
    expect([...sequence].sort((a, b) => a - b)).toEqual(sequence.map((_, i) => i + 1));

    // The prompt's words, the file's content and the collector's token appear nowhere.
    const everything = JSON.stringify([receiver.points, receiver.events]);
    for (const secret of ['secret plan 93', 'const b = 20', 'otlp-secret-4711']) expect(everything).not.toContain(secret);
  });

  it('prompts and tool details only with their own switches (OTEL_LOG_USER_PROMPTS, OTEL_LOG_TOOL_DETAILS)', async () => {
    await session(otelEnv({ OTEL_LOG_USER_PROMPTS: '1', OTEL_LOG_TOOL_DETAILS: '1' }));
    expect(events('user_prompt')[0]!.attributes.prompt).toBe('please change b (secret plan 93)');
    const results = byTool('tool_result');
    expect(JSON.parse(String(results.Edit!.tool_input))).toMatchObject({ old_string: 'const b = 2;', new_string: 'const b = 20;' });
    expect(results.Read!.error).toEqual(expect.stringContaining('File does not exist'));
  });

  it('an embedder’s providers (telemetry option) receive the same instruments; a project’s committed settings cannot switch it on', async () => {
    const { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } = await import('@opentelemetry/sdk-metrics');
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 600_000 })] });
    await session({}, { telemetry: { meterProvider } });
    await meterProvider.forceFlush();
    const names = exporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)));
    expect(names).toEqual(expect.arrayContaining(['claude_code.session.count', 'claude_code.token.usage', 'claude_code.cost.usage', 'claude_code.lines_of_code.count']));
    await meterProvider.shutdown();
    expect(receiver.requests).toEqual([]);

    // The same variables in the repository's .claude/settings.json: ignored.
    const project = path.join(dir, 'project');
    await import('node:fs').then((fs) => fs.mkdirSync(path.join(project, '.claude'), { recursive: true }));
    writeFileSync(path.join(project, '.claude', 'settings.json'), JSON.stringify({ env: otelEnv() }));
    const runtime = await createToolRuntime({ cwd: project, sessionDir: path.join(dir, 's2'), settings: { sources: ['project'] } });
    expect(contextOf(runtime).services.telemetry).toBeUndefined();
    await runtime.dispose();
    expect(receiver.requests).toEqual([]);
  });
});

describe('telemetry off, and dispose with the collector down', { timeout: 300_000 }, () => {
  /** `toolgate run -p` with a module-resolution recorder: which @opentelemetry packages did it load? */
  async function run(env: Record<string, string>): Promise<{ code: number | null; loaded: string[]; stderr: string }> {
    const log = path.join(dir, `modules-${Date.now()}.log`);
    const hook = path.join(dir, 'record-modules.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(`
        import { appendFileSync } from 'node:fs';
        export async function resolve(specifier, context, next) {
          const result = await next(specifier, context);
          if (result.url.includes('/@opentelemetry/')) appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
          return result;
        }`)}));\n`,
    );
    model = await startScriptedServer([{ content: [{ type: 'text', text: 'hi' }], usage: { input_tokens: 10, output_tokens: 2 } }]);
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', hook, path.join(repoRoot, 'src/cli/main.ts'), 'run', '-p', 'hello', '--cwd', dir], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: model.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    await model.close();
    model = undefined;
    const loaded = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    return { code, loaded: [...new Set(loaded.map((u) => /@opentelemetry\/([^/]+)/.exec(u)![1]!))], stderr };
  }

  it('off: nothing reaches the receiver and no OpenTelemetry SDK or exporter module is loaded; on: both happen', async () => {
    const { CLAUDE_CODE_ENABLE_TELEMETRY: _on, ...configuredButOff } = otelEnv();
    const off = await run(configuredButOff);
    expect(off.code).toBe(0);
    expect(receiver.requests).toEqual([]);
    expect(off.loaded.filter((m) => /^(sdk-|exporter-|resources|otlp-)/.test(m))).toEqual([]);

    const on = await run(otelEnv());
    expect(on.code).toBe(0);
    expect(on.loaded).toEqual(expect.arrayContaining(['sdk-metrics', 'sdk-logs', 'exporter-metrics-otlp-http', 'exporter-logs-otlp-http']));
    expect(receiver.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/metrics', '/v1/logs']));
  });

  it('a collector that accepts connections and never answers does not hold the exit beyond the bounds', async () => {
    const net = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const blackHole = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as import('node:net').AddressInfo).port;
    try {
      const result = await run(otelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, CLAUDE_CODE_OTEL_FLUSH_TIMEOUT_MS: '300', CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '300', OTEL_EXPORTER_OTLP_TIMEOUT: '1000' }));
      expect(result.code).toBe(0);
      expect(sockets.length).toBeGreaterThan(0); // it did try
    } finally {
      for (const s of sockets) s.destroy();
      blackHole.close();
    }
  });
});
