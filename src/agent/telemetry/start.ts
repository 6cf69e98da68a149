/**
 * Whether a runtime exports telemetry, and starting it when it does. Off unless switched on: by
 * `CLAUDE_CODE_ENABLE_TELEMETRY=1` (in the environment, or in the `env` of user, managed or `--settings` files — never
 * the project's `.claude/settings*.json`: a repository must not be able to send a session's data somewhere), or by the
 * embedder's `telemetry` option (`true`: exporters from the `OTEL_*` variables; `{ meterProvider, loggerProvider }`:
 * theirs). The OpenTelemetry modules are imported here, dynamically, only once it is on.
 */
import type { MeterProvider } from '@opentelemetry/api';
import type { LoggerProvider } from '@opentelemetry/api-logs';
import type { ToolEventSink } from '../../execution/errors.js';
import { registerSecretValues } from '../../execution/redaction.js';
import type { LoadedSettings } from '../../settings/load-settings.js';
import { isTelemetryVariable, parseKeyValues, readTelemetryConfig, telemetryEnabled } from './config.js';
import { TOOLGATE_VERSION } from '../../tool/version.js';

/** `true`: on, configured by the `OTEL_*` variables; an object: on, through the embedder's providers; `false`: off. */
export type TelemetryOption = boolean | { readonly meterProvider?: MeterProvider; readonly loggerProvider?: LoggerProvider };


export interface StartedTelemetry {
  readonly sink?: ToolEventSink;
  shutdown(): Promise<void>;
  readonly warnings: readonly string[];
}

/**
 * The environment telemetry is configured from: the process's, then the `env` of settings files from the lowest to the
 * highest level, leaving out the telemetry variables of the project's own files — `.claude/settings.json` and
 * `.claude/settings.local.json` (and toolgate's beside them): a cloned repository can carry either, and must not switch
 * telemetry on or send a session's data to an endpoint of its choosing. Each variable left out is said in `ignored`.
 */
export function telemetryEnvironment(
  settings: Pick<LoadedSettings, 'envBySource'>,
  base: NodeJS.ProcessEnv = process.env,
  ignored?: string[],
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const { source, env: levelEnv } of [...settings.envBySource].reverse()) {
    for (const [name, value] of Object.entries(levelEnv)) {
      if ((source === 'projectSettings' || source === 'localSettings') && isTelemetryVariable(name)) {
        ignored?.push(`${name} in the project's ${source === 'localSettings' ? 'local' : 'shared'} settings is ignored: telemetry is configured only by user or managed settings, the command line or the environment`);
        continue;
      }
      env[name] = value;
    }
  }
  return env;
}

export async function startTelemetry(
  option: TelemetryOption | undefined,
  context: { readonly env: Readonly<Record<string, string | undefined>>; readonly sessionId: string },
): Promise<StartedTelemetry | undefined> {
  if (option === false) return undefined;
  const { env } = context;
  if (option === undefined && !telemetryEnabled(env)) return undefined;
  const providers = typeof option === 'object' ? option : undefined;
  const config = readTelemetryConfig(env);
  const warnings = [...config.warnings];
  if (!providers && config.metrics.exporters.length === 0 && config.logs.exporters.length === 0) {
    warnings.push('telemetry is on (CLAUDE_CODE_ENABLE_TELEMETRY) but no exporter is chosen: set OTEL_METRICS_EXPORTER and/or OTEL_LOGS_EXPORTER (otlp, console)');
    return { warnings, shutdown: async () => {} };
  }
  // The collector's credentials must not reach a tool result (a printed environment, a config file read back).
  for (const raw of [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_METRICS_HEADERS, env.OTEL_EXPORTER_OTLP_LOGS_HEADERS]) {
    for (const value of Object.values(parseKeyValues(raw))) {
      const token = /^\S+\s+(\S.*)$/.exec(value)?.[1];
      registerSecretValues([{ label: 'OTEL_EXPORTER_OTLP_HEADERS', value, named: true }, ...(token ? [{ label: 'OTEL_EXPORTER_OTLP_HEADERS', value: token, named: true }] : [])]);
    }
  }
  const { createOtelTelemetry } = await import('./otel-sink.js');
  const started = createOtelTelemetry({
    config,
    sessionId: context.sessionId,
    version: TOOLGATE_VERSION,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'toolgate',
    ...(providers?.meterProvider ? { meterProvider: providers.meterProvider } : {}),
    ...(providers?.loggerProvider ? { loggerProvider: providers.loggerProvider } : {}),
    ...(env.TERM_PROGRAM ? { terminal: env.TERM_PROGRAM } : {}),
  });
  return { sink: started.sink, shutdown: started.shutdown, warnings };
}
