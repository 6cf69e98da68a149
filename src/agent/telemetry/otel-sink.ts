/**
 * The telemetry sink implemented with OpenTelemetry, in the shape Claude Code exports: metrics
 * (`claude_code.session.count`, `token.usage`, `cost.usage`, `lines_of_code.count`, `code_edit_tool.decision`) and
 * events as log records (`claude_code.user_prompt`, `tool_decision`, `tool_result`, `api_request`, `api_error`) with
 * the standard attributes (`session.id`, `app.version` when asked, `terminal.type`) and, on events, `event.name`,
 * `event.timestamp`, `event.sequence` and `prompt.id`.
 *
 * This module imports the OpenTelemetry SDK and exporters: it is loaded (dynamic import, `start.ts`) only when
 * telemetry is on, so a process with telemetry off never loads them.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Counter, MeterProvider } from '@opentelemetry/api';
import type { AnyValueMap, Logger, LoggerProvider } from '@opentelemetry/api-logs';
import { OTLPLogExporter as HttpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtobufLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { AggregationTemporalityPreference, OTLPMetricExporter as HttpJsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, ConsoleLogRecordExporter, LoggerProvider as SdkLoggerProvider, type LogRecordProcessor } from '@opentelemetry/sdk-logs';
import { ConsoleMetricExporter, MeterProvider as SdkMeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import type { ToolEvent, ToolEventSink } from '../../execution/errors.js';
import type { TelemetryConfig } from './config.js';
import { randomUUID } from '../../tool/crypto.js';

export interface OtelTelemetry {
  readonly sink: ToolEventSink;
  /** Exports what is pending and stops, within the configured bounds (providers the embedder gave are only flushed). */
  shutdown(): Promise<void>;
}

export interface OtelTelemetryOptions {
  readonly config: TelemetryConfig;
  readonly sessionId: string;
  readonly version: string;
  readonly serviceName: string;
  /** The embedder's providers: used instead of building exporters from the environment. */
  readonly meterProvider?: MeterProvider;
  readonly loggerProvider?: LoggerProvider;
  readonly terminal?: string;
}

type Attributes = Record<string, string | number | boolean>;
type Scalar = string | number | boolean | undefined;

const SCOPE = 'com.toolgate';
const MAX_VALUE_CHARS = 512;
const MAX_DETAIL_CHARS = 4_096;

export function createOtelTelemetry(options: OtelTelemetryOptions): OtelTelemetry {
  const { config } = options;
  const owned: { meter?: SdkMeterProvider; logger?: SdkLoggerProvider } = {};
  const resource = defaultResource().merge(
    resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.version, ...config.resourceAttributes }),
  );
  let meterProvider = options.meterProvider;
  let loggerProvider = options.loggerProvider;
  const embedded = meterProvider !== undefined || loggerProvider !== undefined;
  // The exporters' HTTP agents are ours: at shutdown they are destroyed and refuse new connections, so an export
  // stuck on a collector that never answers (and its retries) ends there instead of holding the process.
  const agents: HttpAgent[] = [];
  let closed = false;
  const agentFactory = async (protocol: string): Promise<HttpAgent> => {
    const agent = new (protocol === 'https:' ? (await import('node:https')).Agent : (await import('node:http')).Agent)({ keepAlive: true });
    const connect = agent.createConnection.bind(agent) as (...args: unknown[]) => unknown;
    (agent as unknown as { createConnection: (...args: unknown[]) => unknown }).createConnection = (options, callback) => {
      if (!closed) return connect(options, callback);
      (callback as (error: Error) => void)(new Error('telemetry has shut down'));
      return undefined;
    };
    agents.push(agent);
    return agent;
  };
  if (!embedded) {
    const readers = metricReaders(config, agentFactory);
    if (readers.length > 0) meterProvider = owned.meter = new SdkMeterProvider({ resource, readers });
    const processors = logProcessors(config, agentFactory);
    if (processors.length > 0) loggerProvider = owned.logger = new SdkLoggerProvider({ resource, processors });
  }
  const meter = meterProvider?.getMeter(SCOPE, options.version);
  const logger = loggerProvider?.getLogger(SCOPE, options.version);
  const counters = meter
    ? {
        session: meter.createCounter('claude_code.session.count', { description: 'Sessions started', unit: 'count' }),
        lines: meter.createCounter('claude_code.lines_of_code.count', { description: 'Lines of code added and removed', unit: 'count' }),
        cost: meter.createCounter('claude_code.cost.usage', { description: 'Estimated cost of model requests', unit: 'USD' }),
        tokens: meter.createCounter('claude_code.token.usage', { description: 'Tokens used', unit: 'tokens' }),
        editDecision: meter.createCounter('claude_code.code_edit_tool.decision', { description: 'Permission decisions about file-editing tools', unit: 'count' }),
      }
    : undefined;
  const sink = new OtelSink(options, counters, logger);
  return {
    sink,
    shutdown: async () => {
      const providers = [owned.meter ?? options.meterProvider, owned.logger ?? options.loggerProvider].filter(
        (p): p is NonNullable<typeof p> => p !== undefined && typeof (p as { forceFlush?: unknown }).forceFlush === 'function',
      ) as unknown as { forceFlush(): Promise<void> }[];
      await bounded(Promise.all(providers.map((p) => p.forceFlush().catch(() => {}))), config.flushTimeoutMs);
      await bounded(Promise.all([owned.meter?.shutdown(), owned.logger?.shutdown()].map((p) => p?.catch(() => {}))), config.shutdownTimeoutMs);
      closed = true;
      for (const agent of agents) agent.destroy();
    },
  };
}

type AgentFactory = (protocol: string) => Promise<HttpAgent>;

function metricReaders(config: TelemetryConfig, httpAgentOptions: AgentFactory): IMetricReader[] {
  const { metrics } = config;
  const temporalityPreference = config.temporality === 'cumulative' ? AggregationTemporalityPreference.CUMULATIVE : AggregationTemporalityPreference.DELTA;
  return metrics.exporters.map((kind) => {
    const exporter =
      kind === 'console'
        ? new ConsoleMetricExporter()
        : new (metrics.protocol === 'http/json' ? HttpJsonMetricExporter : ProtobufMetricExporter)({
            url: metrics.url,
            headers: { ...metrics.headers },
            timeoutMillis: config.exportTimeoutMs,
            temporalityPreference,
            httpAgentOptions,
          });
    return new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricIntervalMs,
      exportTimeoutMillis: Math.min(config.exportTimeoutMs, config.metricIntervalMs),
    });
  });
}

function logProcessors(config: TelemetryConfig, httpAgentOptions: AgentFactory): LogRecordProcessor[] {
  const { logs } = config;
  return logs.exporters.map((kind) => {
    const exporter =
      kind === 'console'
        ? new ConsoleLogRecordExporter()
        : new (logs.protocol === 'http/json' ? HttpJsonLogExporter : ProtobufLogExporter)({ url: logs.url, headers: { ...logs.headers }, timeoutMillis: config.exportTimeoutMs, httpAgentOptions });
    return new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: config.logsIntervalMs, exportTimeoutMillis: config.exportTimeoutMs });
  });
}

async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

interface Counters {
  readonly session: Counter;
  readonly lines: Counter;
  readonly cost: Counter;
  readonly tokens: Counter;
  readonly editDecision: Counter;
}

/** Claude Code's decision sources, from toolgate's decision trace. */
function decisionSource(a: Readonly<Attributes>): string {
  const layer = a['tool.decision.layer'];
  const answer = a['tool.decision.answer'];
  if (layer === 'hook') return 'hook';
  if (answer === 'permanent') return 'user_permanent';
  if (answer === 'once' || answer === 'session') return 'user_temporary';
  if (answer === 'reject') return 'user_reject';
  if (answer === 'abort') return 'user_abort';
  if (layer === 'prompt' && a['tool.decision'] === 'allow') return 'user_temporary';
  // A deny rule in the person's own settings is their standing "no".
  if (layer === 'denyRule' && a['tool.decision.source'] === 'userSettings') return 'user_reject';
  return 'config';
}

class OtelSink implements ToolEventSink {
  readonly content: { readonly prompts: boolean; readonly toolDetails: boolean };
  readonly #standard: Attributes;
  readonly #decisions = new Map<string, { decision: string; source: string }>();
  #sequence = 0;
  #promptId: string | undefined;

  constructor(
    private readonly options: OtelTelemetryOptions,
    private readonly counters: Counters | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.content = { prompts: options.config.logUserPrompts, toolDetails: options.config.logToolDetails };
    this.#standard = {
      ...(options.config.includeSessionId ? { 'session.id': options.sessionId } : {}),
      ...(options.config.includeVersion ? { 'app.version': options.version } : {}),
      ...(options.terminal ? { 'terminal.type': options.terminal } : {}),
    };
  }

  emit(event: ToolEvent): void {
    try {
      this.#handle(event);
    } catch {
      // Telemetry never changes what a call or a turn does.
    }
  }

  #handle(event: ToolEvent): void {
    const a = event.attributes;
    switch (event.name) {
      case 'session.start':
        this.#count('session', 1, { start_type: a['session.start_type'] });
        return;
      case 'user.prompt': {
        this.#promptId = randomUUID();
        const prompt = this.content.prompts && typeof event.detail?.prompt === 'string' ? event.detail.prompt : undefined;
        this.#log('user_prompt', event, { prompt_length: a['prompt.length'], prompt });
        return;
      }
      case 'tool.decision': {
        const decision = a['tool.decision'] === 'allow' ? 'accept' : 'reject';
        const source = decisionSource(a);
        const id = String(a['tool.use_id'] ?? '');
        this.#decisions.set(id, { decision, source });
        const toolName = a['tool.name'];
        this.#log('tool_decision', event, {
          tool_name: toolName,
          tool_use_id: id,
          decision,
          source,
          decision_layer: a['tool.decision.layer'],
          rule: a['tool.decision.rule'],
          rule_source: a['tool.decision.source'],
        });
        if (a['tool.kind'] === 'write') this.#count('editDecision', 1, { tool_name: toolName, decision, source, language: languageOf(a['tool.file_extension']) });
        return;
      }
      case 'tool.end': {
        const id = String(a['tool.use_id'] ?? '');
        const decided = this.#decisions.get(id);
        this.#decisions.delete(id);
        const failed = a['tool.outcome'] === 'error';
        const d = event.detail;
        this.#log('tool_result', event, {
          tool_name: a['tool.name'],
          tool_use_id: id,
          success: failed ? 'false' : 'true',
          duration_ms: a['tool.duration_ms'],
          error_type: failed ? a['tool.error_class'] : undefined,
          decision_type: decided?.decision,
          decision_source: decided?.source,
          tool_input_size_bytes: a['tool.input_size_bytes'],
          tool_result_size_bytes: a['tool.result_size_bytes'],
          ...(this.content.toolDetails && d
            ? {
                error: typeof d.error === 'string' ? cut(d.error) : undefined,
                tool_input: d.input !== undefined ? detailJson(d.input) : undefined,
                tool_parameters: d.mcpServer !== undefined ? JSON.stringify({ mcp_server_name: d.mcpServer, mcp_tool_name: d.mcpTool }) : undefined,
              }
            : {}),
        });
        const added = a['tool.lines_added'];
        const removed = a['tool.lines_removed'];
        if (typeof added === 'number' && added > 0) this.#count('lines', added, { type: 'added' });
        if (typeof removed === 'number' && removed > 0) this.#count('lines', removed, { type: 'removed' });
        return;
      }
      case 'model.request': {
        const request = { model: a.model, query_source: a.query_source, 'agent.name': a['agent.name'] };
        const cost = a.cost_usd;
        if (typeof cost === 'number' && cost > 0) this.#count('cost', cost, request);
        for (const [type, key] of [['input', 'input_tokens'], ['output', 'output_tokens'], ['cacheRead', 'cache_read_tokens'], ['cacheCreation', 'cache_creation_tokens']] as const) {
          const n = a[key];
          if (typeof n === 'number' && n > 0) this.#count('tokens', n, { type, ...request });
        }
        this.#log('api_request', event, {
          model: a.model,
          cost_usd: cost,
          duration_ms: a.duration_ms,
          input_tokens: a.input_tokens,
          output_tokens: a.output_tokens,
          cache_read_tokens: a.cache_read_tokens,
          cache_creation_tokens: a.cache_creation_tokens,
          query_source: a.query_source,
          request_id: a.request_id,
        });
        return;
      }
      case 'model.error':
        this.#log('api_error', event, { model: a.model, error: a.error, status_code: a.status_code, duration_ms: a.duration_ms, attempt: a.attempt, query_source: a.query_source });
        return;
      default:
        return;
    }
  }

  #count(name: keyof Counters, value: number, attributes: Record<string, Scalar>): void {
    this.counters?.[name].add(value, { ...this.#standard, ...defined(attributes) });
  }

  #log(name: string, event: ToolEvent, attributes: Record<string, Scalar>): void {
    if (!this.logger) return;
    const full = `claude_code.${name}`;
    this.logger.emit({
      eventName: full,
      body: full,
      timestamp: event.timeUnixMs,
      attributes: {
        ...this.#standard,
        'event.name': name,
        'event.timestamp': new Date(event.timeUnixMs).toISOString(),
        'event.sequence': ++this.#sequence,
        ...(this.#promptId ? { 'prompt.id': this.#promptId } : {}),
        ...defined(attributes),
      } as AnyValueMap,
    });
  }
}

function defined(attributes: Record<string, Scalar>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

function cut(text: string, max = MAX_DETAIL_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A tool's input as JSON, each long value cut at 512 characters and the whole at about 4 K (as Claude Code does). */
function detailJson(value: unknown): string {
  const shorten = (v: unknown): unknown => {
    if (typeof v === 'string') return cut(v, MAX_VALUE_CHARS);
    if (Array.isArray(v)) return v.map(shorten);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x)]));
    return v;
  };
  try {
    return cut(JSON.stringify(shorten(value)) ?? '');
  } catch {
    return '';
  }
}

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript',
  js: 'JavaScript', jsx: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript',
  py: 'Python', rb: 'Ruby', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', swift: 'Swift', c: 'C', h: 'C',
  cc: 'C++', cpp: 'C++', hpp: 'C++', cs: 'C#', php: 'PHP', scala: 'Scala', sh: 'Shell', bash: 'Shell', zsh: 'Shell',
  md: 'Markdown', json: 'JSON', yaml: 'YAML', yml: 'YAML', toml: 'TOML', html: 'HTML', css: 'CSS', scss: 'SCSS',
  sql: 'SQL', ipynb: 'Jupyter Notebook', lua: 'Lua', dart: 'Dart', ex: 'Elixir', exs: 'Elixir', vue: 'Vue', svelte: 'Svelte',
};

function languageOf(extension: unknown): string {
  return (typeof extension === 'string' && LANGUAGES[extension]) || 'unknown';
}
