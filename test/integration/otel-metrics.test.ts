// OpenTelemetry metrics (README "Tracing") on real processes: a gateway process exporting
// `mcp.server.operation.duration` and `mcp.client.operation.duration` to a local OTLP/HTTP receiver,
// an HTTP backend that records what it gets and a stdio backend whose `echo` answers `isError` to
// bad arguments; and which signal goes out when the other is off.
import t from 'tap'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startOtlpReceiver, type HistogramPoint } from '../helpers/otlp-receiver.ts'
import { startRecordingBackend } from '../helpers/recording-backend.ts'

const STDIO_MODERN = new URL('../fixtures/stdio-modern.ts', import.meta.url).pathname
const SERVER = 'mcp.server.operation.duration'
const CLIENT = 'mcp.client.operation.duration'
// The explicit bucket boundaries the semantic conventions give both metrics.
const SEMCONV_BOUNDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

function config(httpUrl: string, settings: Record<string, unknown> = {}): string {
  return writeConfig({
    drainDelayMs: 0,
    ...settings,
    backends: [
      { name: 'h', transport: 'http', url: httpUrl, namespace: 'h' },
      { name: 's', transport: 'stdio', command: process.execPath, args: [STDIO_MODERN], env: {}, namespace: 's' },
    ],
  })
}

async function backendsUp(gw: GatewayProcess): Promise<void> {
  await Promise.all(['h', 's'].map((name) => gw.waitForLine(new RegExp(`"backend":"${name}".*"msg":"backend up"`))))
}

async function stop(gw: GatewayProcess): Promise<number | null> {
  gw.child.kill('SIGTERM')
  return gw.exited
}

const total = (points: HistogramPoint[], metric: string): number => points.filter((p) => p.metric === metric).reduce((sum, p) => sum + p.count, 0)

function pointWith(points: HistogramPoint[], metric: string, attributes: Record<string, unknown>): HistogramPoint | undefined {
  return points.find((p) => p.metric === metric && Object.entries(attributes).every(([key, value]) => p.attributes[key] === value))
}

t.test('metrics on, spans off: both durations over OTLP, attributes after the semantic conventions and bounded', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const backend = await startRecordingBackend(t)
  // One tool name per metric before new ones are "other".
  const gw = await startGatewayProcess(t, config(backend.url, { toolLabelLimit: 1 }), {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '100',
  })
  await backendsUp(gw)
  const raw = createRawClient(t, gw.url)
  t.equal((await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { id: 'call-1' })).status, 200)
  t.equal((await raw.rpc('tools/call', { name: 'h__nope', arguments: {} })).json.error.code, -32602)
  t.equal((await raw.rpc('tools/call', { name: 's__echo', arguments: {} })).json.result.isError, true, 'bad arguments: a tool error')

  // Cumulative temporality: the first export that counts all three calls holds their final state.
  const points = await receiver.metricExports.next((ps) => total(ps, SERVER) >= 3 && total(ps, CLIENT) >= 2)
  t.equal(total(points, SERVER), 3, 'one server measurement per request')
  t.equal(total(points, CLIENT), 2, 'one client measurement per upstream call (none for the unknown tool)')
  for (const p of points) {
    t.equal(p.unit, 's', `${p.metric}: seconds`)
    t.same(p.explicitBounds, SEMCONV_BOUNDS, `${p.metric}: the semantic conventions' buckets`)
    t.equal(p.bucketCounts.reduce((a, b) => a + b, 0), p.count, 'bucket counts add up')
    t.ok(p.sum > 0 && p.sum < 10 * p.count, 'durations in seconds')
    t.notOk('jsonrpc.request.id' in p.attributes || 'mcp.session.id' in p.attributes, 'no ids')
  }
  const base = { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2026-07-28', 'gen_ai.operation.name': 'execute_tool' }
  const ok = pointWith(points, SERVER, { ...base, 'gen_ai.tool.name': 'h__who', 'network.transport': 'tcp' })
  t.match(ok, { count: 1 }, 'server: the resolved tool by the client\'s name')
  t.notOk(ok && 'error.type' in ok.attributes, 'no error.type on success')
  const unknown = pointWith(points, SERVER, { 'error.type': '-32602', 'rpc.response.status_code': '-32602' })
  t.match(unknown, { count: 1 }, 'server: the JSON-RPC error code')
  t.notOk(unknown && 'gen_ai.tool.name' in unknown.attributes, 'an unresolved name is not an attribute')
  t.match(pointWith(points, SERVER, { 'error.type': 'tool_error', 'gen_ai.tool.name': 'other' }), { count: 1 }, 'server: isError; past the limit, "other"')

  const port = Number(new URL(backend.url).port)
  const http = { ...base, 'gen_ai.tool.name': 'who', 'peer.service': 'h', 'network.transport': 'tcp', 'server.address': '127.0.0.1', 'server.port': port }
  t.match(pointWith(points, CLIENT, http), { count: 1 }, 'client: the backend\'s tool name, its name and address')
  const stdio = pointWith(points, CLIENT, { 'peer.service': 's', 'network.transport': 'pipe', 'error.type': 'tool_error', 'gen_ai.tool.name': 'other' })
  t.match(stdio, { count: 1 }, 'client: stdio is a pipe; the tool error; past the limit, "other"')
  t.notOk(stdio && 'server.address' in stdio.attributes, 'no address for a stdio backend')

  t.equal(await stop(gw), 0)
  t.notOk(receiver.exports.items.some((e) => e.path === '/v1/traces'), 'OTEL_TRACES_EXPORTER=none: no span exported')
  t.ok(receiver.exports.items.every((e) => e.path === '/v1/metrics'))
})

t.test('spans on, metrics off: traces go out as OTLP protobuf (the default protocol), no metrics', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const backend = await startRecordingBackend(t)
  const gw = await startGatewayProcess(t, config(backend.url), {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_METRICS_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '50', OTEL_BSP_SCHEDULE_DELAY: '20',
  })
  await backendsUp(gw)
  const raw = createRawClient(t, gw.url)
  t.equal((await raw.rpc('tools/call', { name: 'h__who', arguments: {} })).status, 200)
  const traces = await receiver.exports.next((e) => e.path === '/v1/traces')
  t.equal(traces.contentType, 'application/x-protobuf')
  t.ok(traces.body.includes('tools/call h__who'), 'the server span, by name')
  t.equal(await stop(gw), 0, 'shut down (queued spans sent)')
  t.notOk(receiver.exports.items.some((e) => e.path === '/v1/metrics'), 'OTEL_METRICS_EXPORTER=none: no metrics exported')
})
