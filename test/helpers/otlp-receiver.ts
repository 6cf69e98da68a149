/** A local OTLP/HTTP receiver for tests: accepts `POST /v1/metrics` and `/v1/logs` in http/json and decodes them. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean | undefined;
export interface ReceivedPoint {
  readonly metric: string;
  readonly unit?: string;
  readonly value: number;
  readonly attributes: Record<string, AttributeValue>;
  readonly resource: Record<string, AttributeValue>;
}
export interface ReceivedEvent {
  readonly body: string;
  readonly eventName?: string;
  readonly attributes: Record<string, AttributeValue>;
  readonly resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly requests: { readonly path: string; readonly headers: http.IncomingHttpHeaders; readonly contentType?: string }[];
  readonly points: ReceivedPoint[];
  readonly events: ReceivedEvent[];
  /** Sum of a metric's points whose attributes include `where`. */
  sum(metric: string, where?: Record<string, AttributeValue>): number;
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

function attributes(list: KeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue;
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const points: ReceivedPoint[] = [];
  const events: ReceivedEvent[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, contentType: req.headers['content-type'] });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (req.url === '/v1/metrics') {
          for (const rm of body.resourceMetrics ?? []) {
            const resource = attributes(rm.resource?.attributes);
            for (const sm of rm.scopeMetrics ?? []) {
              for (const m of sm.metrics ?? []) {
                for (const p of m.sum?.dataPoints ?? []) {
                  points.push({ metric: m.name, unit: m.unit, value: p.asDouble ?? Number(p.asInt), attributes: attributes(p.attributes), resource });
                }
              }
            }
          }
        } else if (req.url === '/v1/logs') {
          for (const rl of body.resourceLogs ?? []) {
            const resource = attributes(rl.resource?.attributes);
            for (const sl of rl.scopeLogs ?? []) {
              for (const r of sl.logRecords ?? []) events.push({ body: r.body?.stringValue, eventName: r.eventName, attributes: attributes(r.attributes), resource });
            }
          }
        }
      } catch {
        // not JSON (protobuf): counted in `requests` only
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    points,
    events,
    sum: (metric, where = {}) =>
      points.filter((p) => p.metric === metric && Object.entries(where).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + p.value, 0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
