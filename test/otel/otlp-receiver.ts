import http from 'node:http';

/** A span as OTLP/HTTP JSON carries it (ids as hex strings), with its scope's name. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
  scope: string;
}

/** A metric data point's values by metric name: histogram counts and sums, sum values. */
export interface ReceivedMetric {
  name: string;
  unit?: string;
  points: Array<{ attributes: Record<string, unknown>; count?: number; sum?: number; value?: number }>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
const valueOf = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue ?? v.boolValue);
const attrs = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * An OpenTelemetry collector's OTLP/HTTP JSON endpoints in the test process, on 127.0.0.1 and an
 * ephemeral port: `POST /v1/traces` and `POST /v1/metrics`, each export kept as received.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !/json/.test(req.headers['content-type'] ?? '')) return void res.writeHead(415).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/v1/traces') {
        for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) {
          spans.push({ ...s, parentSpanId: s.parentSpanId ?? '', attributes: attrs(s.attributes), scope: ss.scope?.name ?? '' });
        }
      } else if (req.url === '/v1/metrics') {
        for (const rm of body.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) {
          const points = (m.histogram?.dataPoints ?? m.sum?.dataPoints ?? m.gauge?.dataPoints ?? []).map((p: Record<string, unknown>) => ({
            attributes: attrs(p.attributes as never),
            ...(p.count !== undefined ? { count: Number(p.count) } : {}),
            ...(p.sum !== undefined ? { sum: Number(p.sum) } : {}),
            ...(p.asDouble !== undefined || p.asInt !== undefined ? { value: Number(p.asDouble ?? p.asInt) } : {}),
          }));
          metrics.push({ name: m.name, unit: m.unit, points });
        }
      } else {
        return void res.writeHead(404).end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
