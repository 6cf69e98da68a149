/**
 * Telemetry configuration, read the way Claude Code reads it: `CLAUDE_CODE_ENABLE_TELEMETRY=1` switches it on, the
 * standard `OTEL_*` variables say where and how (exporters, OTLP protocol, endpoint, headers, intervals, temporality,
 * resource attributes), `OTEL_LOG_USER_PROMPTS` and `OTEL_LOG_TOOL_DETAILS` switch content on. Pure: no OpenTelemetry
 * module is loaded to read it.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type ExporterKind = 'otlp' | 'console';

export interface SignalConfig {
  readonly exporters: readonly ExporterKind[];
  readonly protocol: OtlpProtocol;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface TelemetryConfig {
  readonly metrics: SignalConfig;
  readonly logs: SignalConfig;
  readonly metricIntervalMs: number;
  readonly logsIntervalMs: number;
  readonly exportTimeoutMs: number;
  readonly temporality: 'delta' | 'cumulative';
  readonly logUserPrompts: boolean;
  readonly logToolDetails: boolean;
  readonly includeSessionId: boolean;
  readonly includeVersion: boolean;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** Bounds on the last export at `dispose()`: a collector that is down must not hold the process. */
  readonly flushTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  /** What was asked for and cannot be done (grpc, prometheus, unknown exporters, bad numbers). */
  readonly warnings: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
const falsy = (v: string | undefined) => v !== undefined && /^(0|false|no|off)$/i.test(v.trim());

/** `CLAUDE_CODE_ENABLE_TELEMETRY` is set to 1 (or true/yes/on). */
export function telemetryEnabled(env: Env): boolean {
  return truthy(env.CLAUDE_CODE_ENABLE_TELEMETRY);
}

/** The variables that decide whether and where telemetry goes: a repository's own settings may not set them. */
export function isTelemetryVariable(name: string): boolean {
  return name === 'CLAUDE_CODE_ENABLE_TELEMETRY' || name.startsWith('OTEL_') || name.startsWith('CLAUDE_CODE_OTEL_');
}

export function readTelemetryConfig(env: Env): TelemetryConfig {
  const warnings: string[] = [];
  const number = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (Number.isFinite(n) && n > 0) return n;
    warnings.push(`${name}=${JSON.stringify(raw)} is not a positive number of milliseconds; using ${fallback}`);
    return fallback;
  };
  const signal = (kind: 'METRICS' | 'LOGS', path: string): SignalConfig => {
    const exporters = exportersOf(kind, env[`OTEL_${kind}_EXPORTER`], warnings);
    const rawProtocol = (env[`OTEL_EXPORTER_OTLP_${kind}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
    let protocol: OtlpProtocol = 'http/protobuf';
    let usable = exporters;
    if (rawProtocol === 'http/json' || rawProtocol === 'http/protobuf') protocol = rawProtocol;
    else if (exporters.includes('otlp')) {
      warnings.push(`OTLP protocol "${rawProtocol}" is not supported for ${kind.toLowerCase()} (toolgate exports over http/protobuf or http/json, usually port 4318): its OTLP export is off`);
      usable = exporters.filter((e) => e !== 'otlp');
    }
    const own = env[`OTEL_EXPORTER_OTLP_${kind}_ENDPOINT`]?.trim();
    const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    const url = own || (base ? `${base.replace(/\/+$/, '')}/${path}` : `http://localhost:4318/${path}`);
    const headers = { ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyValues(env[`OTEL_EXPORTER_OTLP_${kind}_HEADERS`]) };
    return { exporters: usable, protocol, url, headers };
  };
  const temporality = env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE?.trim().toLowerCase();
  return {
    metrics: signal('METRICS', 'v1/metrics'),
    logs: signal('LOGS', 'v1/logs'),
    metricIntervalMs: number('OTEL_METRIC_EXPORT_INTERVAL', 60_000),
    logsIntervalMs: number('OTEL_LOGS_EXPORT_INTERVAL', 5_000),
    exportTimeoutMs: number('OTEL_EXPORTER_OTLP_TIMEOUT', 10_000),
    // Claude Code's default is delta; `cumulative` for backends that want it.
    temporality: temporality === 'cumulative' ? 'cumulative' : 'delta',
    logUserPrompts: truthy(env.OTEL_LOG_USER_PROMPTS),
    logToolDetails: truthy(env.OTEL_LOG_TOOL_DETAILS),
    includeSessionId: !falsy(env.OTEL_METRICS_INCLUDE_SESSION_ID),
    includeVersion: truthy(env.OTEL_METRICS_INCLUDE_VERSION),
    resourceAttributes: parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES),
    flushTimeoutMs: number('CLAUDE_CODE_OTEL_FLUSH_TIMEOUT_MS', 5_000),
    shutdownTimeoutMs: number('CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS', 2_000),
    warnings,
  };
}

function exportersOf(kind: 'METRICS' | 'LOGS', raw: string | undefined, warnings: string[]): ExporterKind[] {
  const out: ExporterKind[] = [];
  for (const name of (raw ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (name === 'otlp' || name === 'console') {
      if (!out.includes(name)) out.push(name);
    } else if (name !== 'none') {
      warnings.push(`OTEL_${kind}_EXPORTER "${name}" is not supported (otlp, console, none)`);
    }
  }
  return out;
}

/** `key=value,key2=value2` (W3C baggage style, as OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS are written). */
export function parseKeyValues(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = decode(pair.slice(0, eq).trim());
    const value = decode(pair.slice(eq + 1).trim());
    if (key) out[key] = value;
  }
  return out;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
