// A local OTLP/HTTP receiver on 127.0.0.1 port 0 for the tracing and metrics tests: every export
// request as it came (path, content type, bytes) and, for JSON ones, what they carry: spans and
// metric data points, attributes flattened. Each collector's `next(predicate)` resolves with the
// first match, past or future: tests wait on what arrives, never on time.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TeardownHost } from './backend-process.ts'

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Record<string, unknown>
}

export interface ReceivedExport {
  path: string
  contentType: string
  body: Buffer
}

// One histogram data point of one export.
export interface HistogramPoint {
  metric: string
  unit: string
  count: number
  sum: number
  bucketCounts: number[]
  explicitBounds: number[]
  attributes: Record<string, unknown>
}

export function collector<T>() {
  const items: T[] = []
  const waiters = new Set<{ predicate: (item: T) => boolean; resolve: (item: T) => void }>()
  return {
    items,
    push(item: T): void {
      items.push(item)
      for (const w of waiters) if (w.predicate(item)) (waiters.delete(w), w.resolve(item))
    },
    next(predicate: (item: T) => boolean): Promise<T> {
      const seen = items.find(predicate)
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.add({ predicate, resolve }))
    },
  }
}

type KeyValue = { key: string; value: Record<string, unknown> }

function flatten(attributes: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]))
}

function spansOf(json: { resourceSpans?: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan & { attributes: KeyValue[] }> }> }> }): OtlpSpan[] {
  return (json.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, attributes: flatten(s.attributes) }))))
}

interface JsonMetric {
  name: string
  unit: string
  histogram?: { dataPoints: Array<{ count: unknown; sum: unknown; bucketCounts: unknown[]; explicitBounds: number[]; attributes: KeyValue[] }> }
}

// The histogram points of one metrics export (int64 fields may come as strings).
function pointsOf(json: { resourceMetrics?: Array<{ scopeMetrics: Array<{ metrics: JsonMetric[] }> }> }): HistogramPoint[] {
  const metrics = (json.resourceMetrics ?? []).flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
  return metrics.flatMap((m) => (m.histogram?.dataPoints ?? []).map((p) => ({
    metric: m.name, unit: m.unit, count: Number(p.count), sum: Number(p.sum), bucketCounts: p.bucketCounts.map(Number), explicitBounds: p.explicitBounds, attributes: flatten(p.attributes),
  })))
}

// `answer: false`: an endpoint that takes exports and never answers them.
export async function startOtlpReceiver(t: TeardownHost, answer = true) {
  const exports = collector<ReceivedExport>()
  const spans = collector<OtlpSpan>()
  // Every metrics export: a snapshot of all its points (cumulative temporality: counts so far).
  const metricExports = collector<HistogramPoint[]>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const received = { path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) }
      exports.push(received)
      if (!answer) return
      if (received.contentType.startsWith('application/json')) {
        const json = JSON.parse(received.body.toString('utf8'))
        for (const span of spansOf(json)) spans.push(span)
        if (json.resourceMetrics !== undefined) metricExports.push(pointsOf(json))
      }
      res.writeHead(200, { 'content-type': received.contentType || 'application/json' }).end(received.contentType.startsWith('application/json') ? '{}' : '')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, spans, metricExports }
}
