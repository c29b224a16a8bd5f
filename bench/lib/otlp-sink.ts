// A local OTLP/HTTP sink on 127.0.0.1 for the tracing scenario: accepts every export with 200 and
// counts, per signal, the export requests it got and the spans in them (protobuf bodies walked just
// deep enough to count spans, JSON ones parsed), so the scenario can tell whether every span arrived.
// It runs as its own child process (fixtures/otlp-sink.ts): in the harness, reading the exports
// would stall the load generator's event loop and slow the very gateways it measures.
import { createServer, type Server } from 'node:http'
import { Client } from 'undici'
import type { BenchContext } from './context.ts'
import { startSinkFixture } from './fixture-targets.ts'

export interface SinkCounts {
  // Trace export requests, the spans in them, metrics export requests.
  exports: number
  spans: number
  metricExports: number
}

export interface OtlpSink {
  endpoint: string
  counts(): Promise<SinkCounts>
  stop(): Promise<void>
}

function readVarint(body: Buffer, at: number): [number, number] {
  let value = 0
  let shift = 0
  let pos = at
  for (;;) {
    const byte = body[pos++]
    value += (byte & 0x7f) * 2 ** shift
    if (byte < 0x80) return [value, pos]
    shift += 7
  }
}

// The [start, end) of each length-delimited `field` in body[start, end), other fields skipped.
function lengthFields(body: Buffer, start: number, end: number, field: number): Array<[number, number]> {
  const found: Array<[number, number]> = []
  let pos = start
  while (pos < end) {
    const [tag, afterTag] = readVarint(body, pos)
    const wire = tag & 7
    pos = afterTag
    if (wire === 0) pos = readVarint(body, pos)[1]
    else if (wire === 1) pos += 8
    else if (wire === 5) pos += 4
    else if (wire === 2) {
      const [length, from] = readVarint(body, pos)
      if (tag >>> 3 === field) found.push([from, from + length])
      pos = from + length
    } else throw new Error(`unexpected protobuf wire type ${wire}`)
  }
  return found
}

// ExportTraceServiceRequest.resource_spans (1) → ResourceSpans.scope_spans (2) → ScopeSpans.spans (2).
export function countProtobufSpans(body: Buffer): number {
  let spans = 0
  for (const [rs, rsEnd] of lengthFields(body, 0, body.length, 1)) {
    for (const [ss, ssEnd] of lengthFields(body, rs, rsEnd, 2)) spans += lengthFields(body, ss, ssEnd, 2).length
  }
  return spans
}

function countJsonSpans(body: Buffer): number {
  const json = JSON.parse(body.toString('utf8')) as { resourceSpans?: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> }
  return (json.resourceSpans ?? []).reduce((n, rs) => n + rs.scopeSpans.reduce((m, ss) => m + ss.spans.length, 0), 0)
}

// The sink's server (in the fixture process): exports counted; GET /counts answers the counts.
export function createSinkServer(): Server {
  const counts: SinkCounts = { exports: 0, spans: 0, metricExports: 0 }
  return createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/counts') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts))
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
      const json = (req.headers['content-type'] ?? '').startsWith('application/json')
      if (req.url === '/v1/metrics') counts.metricExports++
      else {
        counts.exports++
        counts.spans += json ? countJsonSpans(Buffer.concat(chunks)) : countProtobufSpans(Buffer.concat(chunks))
      }
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '')
    })
  })
}

export async function startOtlpSink(ctx: BenchContext): Promise<OtlpSink> {
  const target = await startSinkFixture(ctx)
  const endpoint = target.url.origin
  return {
    endpoint,
    async counts() {
      const client = new Client(endpoint)
      try {
        const res = await client.request({ path: '/counts', method: 'GET' })
        return (await res.body.json()) as SinkCounts
      } finally {
        await client.close()
      }
    },
    stop: () => target.handle.stop(),
  }
}
