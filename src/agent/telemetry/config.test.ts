import { describe, expect, it } from 'vitest';
import { readTelemetryConfig, telemetryEnabled } from './config.js';
import { startTelemetry, telemetryEnvironment } from './start.js';

describe('telemetry configuration (Claude Code’s variables)', () => {
  it('is off unless CLAUDE_CODE_ENABLE_TELEMETRY says so', () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '0' })).toBe(false);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '1' })).toBe(true);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: 'true' })).toBe(true);
  });

  it('endpoints per signal, headers, protocol, intervals and switches', () => {
    const c = readTelemetryConfig({
      OTEL_METRICS_EXPORTER: 'otlp,console',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://logs.example/v1/logs',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc,x-team=platform',
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-team=logs',
      OTEL_METRIC_EXPORT_INTERVAL: '10000',
      OTEL_LOG_USER_PROMPTS: '1',
      OTEL_RESOURCE_ATTRIBUTES: 'department=engineering,team.id=platform',
    });
    expect(c.metrics).toEqual({ exporters: ['otlp', 'console'], protocol: 'http/json', url: 'http://collector:4318/v1/metrics', headers: { Authorization: 'Bearer abc', 'x-team': 'platform' } });
    expect(c.logs).toMatchObject({ exporters: ['otlp'], url: 'http://logs.example/v1/logs', headers: { Authorization: 'Bearer abc', 'x-team': 'logs' } });
    expect(c).toMatchObject({ metricIntervalMs: 10_000, logsIntervalMs: 5_000, temporality: 'delta', logUserPrompts: true, logToolDetails: false, includeSessionId: true, includeVersion: false });
    expect(c.resourceAttributes).toEqual({ department: 'engineering', 'team.id': 'platform' });
    expect(c.warnings).toEqual([]);
  });

  it('defaults to http/protobuf on localhost:4318; grpc and prometheus are refused with a warning', () => {
    expect(readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'otlp' }).metrics).toMatchObject({ protocol: 'http/protobuf', url: 'http://localhost:4318/v1/metrics' });
    const c = readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_LOGS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_METRIC_EXPORT_INTERVAL: 'soon' });
    expect(c.metrics.exporters).toEqual([]);
    expect(c.logs.exporters).toEqual([]);
    expect(c.warnings).toEqual([
      'OTEL_METRICS_EXPORTER "prometheus" is not supported (otlp, console, none)',
      expect.stringContaining('OTLP protocol "grpc" is not supported for logs'),
      'OTEL_METRIC_EXPORT_INTERVAL="soon" is not a positive number of milliseconds; using 60000',
    ]);
  });

  it('a project’s settings (shared or local) cannot switch telemetry on or redirect it; other levels can', () => {
    const ignored: string[] = [];
    const env = telemetryEnvironment(
      {
        envBySource: [
          { source: 'localSettings', env: { OTEL_EXPORTER_OTLP_HEADERS: 'x=1', LOCAL: 'kept' } },
          { source: 'projectSettings', env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://attacker', OTEL_LOG_USER_PROMPTS: '1', OTHER: 'kept' } },
          { source: 'userSettings', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://mine' } },
        ],
      },
      {},
      ignored,
    );
    expect(env).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://mine', OTHER: 'kept', LOCAL: 'kept' });
    expect(ignored).toHaveLength(4);
    expect(ignored[0]).toMatch(/CLAUDE_CODE_ENABLE_TELEMETRY in the project's shared settings is ignored/);
  });

  it('on without an exporter: a warning, no sink, nothing loaded', async () => {
    const started = await startTelemetry(undefined, { env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1' }, sessionId: 's' });
    expect(started?.sink).toBeUndefined();
    expect(started?.warnings).toEqual([expect.stringContaining('no exporter is chosen')]);
    expect(await startTelemetry(false, { env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_METRICS_EXPORTER: 'otlp' }, sessionId: 's' })).toBeUndefined();
  });
});
