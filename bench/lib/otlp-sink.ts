// A local OTLP/HTTP sink on 127.0.0.1 for the tracing scenario: accepts every export with 200 and
// counts, per signal, the export requests it got and the spans in them (protobuf bodies walked just
// deep enough to count spans, JSON ones parsed), so the scenario can tell whether every span arrived.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { assertLoopbackListener } from './loopback-guard.ts'

export interface OtlpSink {
  endpoint: string
  // Trace export requests.
  exports(): number
  spans(): number
  metricExports(): number
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

export async function startOtlpSink(): Promise<OtlpSink> {
  const counts = { exports: 0, spans: 0, metricExports: 0 }
  const server = createServer((req, res) => {
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
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  assertLoopbackListener(port)
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports: () => counts.exports,
    spans: () => counts.spans,
    metricExports: () => counts.metricExports,
    stop: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}
