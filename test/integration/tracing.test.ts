// Tracing (README "Tracing", TRACE-1, TRACE-2) on real processes: a gateway process exporting to a
// local OTLP/HTTP (JSON) receiver; behind it a node:http modern backend that records what it gets,
// and stdio backends of both eras whose `trace-meta` tool returns the trace context it got.
import t from 'tap'
import { createRawClient, type RawMcpClient } from '../helpers/mcp-client.ts'
import { startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { legacyRpc, openRawSession } from '../helpers/legacy-client.ts'
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts'
import { startRecordingBackend, type RecordingBackend } from '../helpers/recording-backend.ts'

const STDIO_MODERN = new URL('../fixtures/stdio-modern.ts', import.meta.url).pathname
const STDIO_LEGACY = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CLIENT_SPAN = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`
const W3C = { traceparent: TRACEPARENT, tracestate: 'vendor=opaque', baggage: 'user=alice' }

function backends(httpUrl: string): unknown[] {
  return [
    { name: 'h', transport: 'http', url: httpUrl, namespace: 'h', forwardBaggage: true },
    { name: 's', transport: 'stdio', command: process.execPath, args: [STDIO_MODERN], env: {}, namespace: 's' },
    { name: 'l', transport: 'stdio', command: process.execPath, args: [STDIO_LEGACY], env: {}, namespace: 'l' },
  ]
}

async function traceMeta(raw: RawMcpClient, tool: string, meta: Record<string, unknown>): Promise<Record<string, string | undefined>> {
  const reply = await raw.rpc('tools/call', { name: tool, arguments: {} }, { meta })
  return JSON.parse(reply.json.result.content[0].text) as Record<string, string | undefined>
}

// The tools/call requests the backend received.
const calls = (backend: RecordingBackend) => backend.requests.filter((r) => r.method === 'tools/call')
const traceIdOf = (traceparent: unknown): string => String(traceparent).split('-')[1]
const spanIdOf = (traceparent: unknown): string => String(traceparent).split('-')[2]

t.test('tracing on: server and client spans exported over OTLP, the backend continues the trace', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const backend = await startRecordingBackend(t)
  const gw = await startGatewayProcess(t, writeConfig({ backends: backends(backend.url) }), {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_SERVICE_NAME: 'gw-under-test',
    OTEL_METRIC_EXPORT_INTERVAL: '50',
  })
  await Promise.all(['h', 's', 'l'].map((name) => gw.waitForLine(new RegExp(`"backend":"${name}".*"msg":"backend up"`))))
  const raw = createRawClient(t, gw.url)

  const reply = await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { id: 'call-7', meta: W3C })
  t.equal(reply.status, 200)
  const [received] = calls(backend)
  t.equal(traceIdOf(received.meta.traceparent), TRACE_ID, '_meta: the client\'s trace id')
  t.equal(received.headers.traceparent, received.meta.traceparent, 'the HTTP header carries the same traceparent')
  t.not(spanIdOf(received.meta.traceparent), CLIENT_SPAN, 'the parent is the gateway\'s span, not the client\'s')
  t.match(received, { meta: { tracestate: 'vendor=opaque', baggage: 'user=alice' }, headers: { tracestate: 'vendor=opaque', baggage: 'user=alice' } })

  const server = await receiver.spans.next((s) => s.kind === 2 && s.name === 'tools/call h__who')
  const client = await receiver.spans.next((s) => s.kind === 3 && s.name === 'tools/call who')
  t.match(server, { traceId: TRACE_ID, parentSpanId: CLIENT_SPAN }, 'the server span continues the client\'s trace')
  t.match(server.attributes, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'h__who', 'jsonrpc.request.id': 'call-7', 'mcp.protocol.version': '2026-07-28' })
  t.match(client, { traceId: TRACE_ID, parentSpanId: server.spanId }, 'the client span is the server span\'s child')
  t.match(client.attributes, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'who', 'peer.service': 'h', 'network.transport': 'tcp' })
  t.equal(spanIdOf(received.meta.traceparent), client.spanId, 'the backend\'s parent is the client span')

  const stdio = await traceMeta(raw, 's__trace-meta', W3C)
  t.equal(traceIdOf(stdio.traceparent), TRACE_ID, 'stdio (modern): the trace continues')
  t.equal(stdio.baggage, undefined, 'baggage withheld from a backend without forwardBaggage')
  const legacy = await traceMeta(raw, 'l__trace-meta', W3C)
  t.equal(traceIdOf(legacy.traceparent), TRACE_ID, 'stdio (2025-11-25 backend): the trace continues')
  const stdioSpan = await receiver.spans.next((s) => s.kind === 3 && s.attributes['peer.service'] === 'l')
  t.equal(stdioSpan.attributes['network.transport'], 'pipe')

  // A bridged MRTR call (LEGACY-C5): the retry resumes the held backend call, and that round is
  // the retry's upstream call: its client span ends with it, under the retry's server span.
  const capabilities = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
  const ask = await raw.rpc('tools/call', { name: 'l__ask-name', arguments: {} }, { id: 'ask-1', meta: capabilities })
  t.equal(ask.json.result?.resultType, 'input_required')
  const [key] = Object.keys(ask.json.result.inputRequests)
  const inputResponses = { [key]: { action: 'accept', content: { name: 'Ada' } } }
  const done = await raw.rpc('tools/call', { name: 'l__ask-name', arguments: {}, inputResponses, requestState: ask.json.result.requestState }, { id: 'ask-2', meta: capabilities })
  t.match(done.json.result, { content: [{ text: 'hello Ada' }] })
  const retrySpan = await receiver.spans.next((s) => s.kind === 2 && s.attributes['jsonrpc.request.id'] === 'ask-2')
  const resumedSpan = await receiver.spans.next((s) => s.kind === 3 && s.parentSpanId === retrySpan.spanId)
  t.match(resumedSpan, { name: 'tools/call ask-name', attributes: { 'peer.service': 'l' } }, 'the resumed call\'s client span is exported')

  const fresh = await raw.rpc('tools/call', { name: 'h__who', arguments: {} })
  t.equal(fresh.status, 200)
  const root = await receiver.spans.next((s) => s.kind === 2 && !s.parentSpanId)
  t.not(root.traceId, TRACE_ID, 'no trace context from the client → a new trace')

  // A 2025-11-25 client: its session named by a digest (the id itself is a bearer token).
  const { sessionId } = await openRawSession(raw)
  const legacyCall = await legacyRpc(raw, sessionId, 'tools/call', { name: 'h__who', arguments: {}, _meta: { traceparent: TRACEPARENT } }, 'legacy-1')
  t.equal(legacyCall.status, 200)
  const sessionSpan = await receiver.spans.next((s) => s.kind === 2 && s.attributes['jsonrpc.request.id'] === 'legacy-1')
  t.match(sessionSpan, { traceId: TRACE_ID, attributes: { 'mcp.session.id': /^[0-9a-f]{32}$/, 'mcp.protocol.version': '2025-11-25' } })
  t.not(sessionSpan.attributes['mcp.session.id'], sessionId)
  t.equal(traceIdOf(calls(backend).at(-1)!.meta.traceparent), TRACE_ID, 'the legacy client\'s trace continues to the backend')

  // The client's trace not sampled (flags 00; parentbased default): no span, the context still
  // passes on, its parent a span id of the gateway's. The sampled call after it ends later, so a
  // span of the unsampled one would have been exported in the same batch or an earlier one.
  const UNSAMPLED_TRACE = 'a'.repeat(32)
  await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { id: 'unsampled-1', meta: { traceparent: `00-${UNSAMPLED_TRACE}-${CLIENT_SPAN}-00` } })
  const unsampled = calls(backend).at(-1)!.meta.traceparent as string
  t.match(unsampled, new RegExp(`^00-${UNSAMPLED_TRACE}-[0-9a-f]{16}-00$`), 'sampled out: the trace passes on, not sampled')
  t.not(spanIdOf(unsampled), CLIENT_SPAN)
  await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { id: 'sampled-after' })
  await receiver.spans.next((s) => s.kind === 2 && s.attributes['jsonrpc.request.id'] === 'sampled-after')
  t.notOk(receiver.spans.items.some((s) => s.traceId === UNSAMPLED_TRACE), 'no span exported for the unsampled trace')

  const unknown = await raw.rpc('tools/call', { name: 'h__nope', arguments: {} }, { id: 'call-8' })
  t.equal(unknown.json.error.code, -32602)
  const failed = await receiver.spans.next((s) => s.attributes['jsonrpc.request.id'] === 'call-8')
  t.match(failed.attributes, { 'error.type': '-32602', 'rpc.response.status_code': '-32602' })
  t.match(failed, { name: 'tools/call h__nope' })

  // Spans and metrics both on: the legacy call is measured too, its session id nowhere in the metrics.
  const points = await receiver.metricExports.next((ps) => ps.some((p) => p.metric === 'mcp.server.operation.duration' && p.attributes['mcp.protocol.version'] === '2025-11-25'))
  const legacyPoint = points.find((p) => p.metric === 'mcp.server.operation.duration' && p.attributes['mcp.protocol.version'] === '2025-11-25')!
  t.match(legacyPoint.attributes, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'h__who' })
  t.notOk(points.some((p) => 'mcp.session.id' in p.attributes || 'jsonrpc.request.id' in p.attributes), 'no session or request ids in metric attributes')
})

t.test('tracing off: the W3C context passes on unchanged, from _meta or from the HTTP headers', async (t) => {
  const backend = await startRecordingBackend(t)
  const gw = await startGatewayProcess(t, writeConfig({ backends: backends(backend.url).slice(0, 2) }))
  await Promise.all(['h', 's'].map((name) => gw.waitForLine(new RegExp(`"backend":"${name}".*"msg":"backend up"`))))
  const raw = createRawClient(t, gw.url)

  await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { meta: W3C })
  t.match(calls(backend)[0], { meta: W3C, headers: W3C }, 'from _meta: in _meta and as headers, unchanged')
  await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { headers: W3C })
  t.match(calls(backend)[1], { meta: W3C, headers: W3C }, 'from the W3C headers: the same')
  await raw.rpc('tools/call', { name: 'h__who', arguments: {} })
  t.notOk('traceparent' in calls(backend)[2].meta || 'traceparent' in calls(backend)[2].headers, 'none sent → none invented')
  const invalid = await raw.rpc('tools/call', { name: 'h__who', arguments: {} }, { meta: { traceparent: 'ff-nope', tracestate: 'a=b' } })
  t.equal(invalid.status, 200)
  t.notOk('traceparent' in calls(backend)[3].headers, 'an invalid traceparent is not passed on as a header')
  t.same(await traceMeta(raw, 's__trace-meta', W3C), { traceparent: TRACEPARENT, tracestate: 'vendor=opaque' }, 'stdio: in _meta, baggage withheld')
})

t.test('OTLP endpoint that never answers → requests are not slowed (export is off the request path)', async (t) => {
  const receiver = await startOtlpReceiver(t, false)
  const backend = await startRecordingBackend(t)
  const gw = await startGatewayProcess(t, writeConfig({ backends: backends(backend.url).slice(0, 1) }), {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin, OTEL_BSP_SCHEDULE_DELAY: '10', OTEL_BSP_MAX_QUEUE_SIZE: '16', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4',
  })
  await gw.waitForLine(/"msg":"backend up"/)
  const raw = createRawClient(t, gw.url)
  await raw.rpc('tools/call', { name: 'h__who', arguments: {} })
  await receiver.exports.next(() => true) // an export is now hanging
  for (let i = 0; i < 100; i++) {
    const reply = await raw.rpc('tools/call', { name: 'h__who', arguments: {} })
    if (reply.status !== 200) t.fail(`call ${i}: ${reply.status}`)
  }
  t.equal(calls(backend).length, 101, 'every call went through while the exporter waited')
})
