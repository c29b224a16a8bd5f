// The operations metrics on real sockets (README "Operations"): per-tool and per-backend latency
// with bounded labels, isError results as tool_error, MRTR rounds, stream kinds, legacy sessions,
// stdio restarts, build info and process metrics; and the README table names exactly the series
// a running gateway exposes, both ways.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { META, createRawClient, metricValue, type RawMcpClient } from '../helpers/mcp-client.ts'
import { openRawSession } from '../helpers/legacy-client.ts'
import { documentedMetrics, exposedMetrics } from '../helpers/metric-names.ts'
import pkg from '../../package.json' with { type: 'json' }

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const ELICITATION = { [META.clientCapabilities]: { elicitation: {} } }

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras'])

async function scrape(raw: RawMcpClient): Promise<string> {
  const reply = await raw.send('GET', '/metrics')
  if (reply.status !== 200) throw new Error(`/metrics: HTTP ${reply.status}`)
  return reply.text
}

t.test('tool calls → duration by backend, tool and outcome; isError is tool_error; unknown names never labels', async (t) => {
  const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a', timeoutMs: 120_000 }] })
  const raw = createRawClient(t, gateway.url)
  t.match((await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'x' } })).json, { result: { content: [{ text: 'alpha:x' }] } })
  t.match((await raw.rpc('tools/call', { name: 'a__fail', arguments: {} })).json, { result: { isError: true } })
  t.match((await raw.rpc('tools/call', { name: 'a__no-such-tool-xyz', arguments: {} })).json, { error: { code: -32602 } })
  const asked = await raw.rpc('tools/call', { name: 'a__ask-name', arguments: {} }, { meta: ELICITATION })
  t.equal(asked.json.result.resultType, 'input_required')
  const text = await scrape(raw)
  const count = 'mcp_gateway_tool_call_duration_seconds_count'
  t.equal(metricValue(text, count, { backend: 'a', tool: 'echo', outcome: 'ok' }), 1)
  t.equal(metricValue(text, count, { backend: 'a', tool: 'fail', outcome: 'tool_error' }), 1, 'isError: true → tool_error')
  t.equal(metricValue(text, count, { backend: 'a', tool: 'ask-name', outcome: 'input_required' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'tool_error' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_mrtr_rounds_total'), 1)
  t.notMatch(text, /no-such-tool-xyz/, 'a name the catalogue does not know is never a label')
  t.ok(metricValue(text, 'mcp_gateway_upstream_request_duration_seconds_count', { backend: 'a', outcome: 'ok' }) >= 3, 'every upstream request timed')
  t.match(text, /mcp_gateway_tool_call_duration_seconds_bucket\{le="60",backend="a",tool="echo",outcome="ok"\}/, '60 s bucket')
  t.match(text, /mcp_gateway_tool_call_duration_seconds_bucket\{le="120",backend="a",tool="echo",outcome="ok"\}/, 'a bucket at the 120 s backend timeout')
  t.match(text, /mcp_gateway_request_duration_seconds_bucket\{le="120",method="tools\/call"\}/)
})

t.test('more distinct tools than toolLabelLimit → the rest counted as tool="other"', async (t) => {
  const gateway = await startGateway(t, { toolLabelLimit: 2, backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
  const raw = createRawClient(t, gateway.url)
  for (const name of ['echo', 'add', 'fail', 'echo']) await raw.rpc('tools/call', { name: `a__${name}`, arguments: { text: 'x', a: 1, b: 2 } })
  const text = await scrape(raw)
  const count = 'mcp_gateway_tool_call_duration_seconds_count'
  t.equal(metricValue(text, count, { backend: 'a', tool: 'echo', outcome: 'ok' }), 2)
  t.equal(metricValue(text, count, { backend: 'a', tool: 'add', outcome: 'ok' }), 1)
  t.equal(metricValue(text, count, { backend: 'a', tool: 'other', outcome: 'tool_error' }), 1, 'the third tool is "other"')
  t.notMatch(text, /tool="fail"/)
})

t.test('open streams by kind; legacy sessions seen; build info; process metrics', async (t) => {
  const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
  const raw = createRawClient(t, gateway.url)
  const controller = new AbortController()
  t.teardown(() => controller.abort())
  const listen = await raw.stream('subscriptions/listen', { notifications: { toolsListChanged: true } }, { signal: controller.signal })
  const events = listen.events[Symbol.asyncIterator]()
  await events.next() // the acknowledgment: the stream is open
  await openRawSession(raw)
  const text = await scrape(raw)
  t.equal(metricValue(text, 'mcp_gateway_sse_streams_active', { kind: 'listen' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_sse_streams_active', { kind: 'response' }), 0)
  t.equal(metricValue(text, 'mcp_gateway_sse_streams_active', { kind: 'legacy_get' }), 0)
  t.equal(metricValue(text, 'mcp_gateway_sessions_active'), 1, 'the session just initialized')
  t.equal(metricValue(text, 'mcp_gateway_build_info', { version: pkg.version, node: process.version }), 1)
  t.ok(metricValue(text, 'mcp_gateway_process_cpu_user_seconds_total') > 0, 'default process metrics, prefixed')
  t.notMatch(text, /^process_cpu/m, 'no unprefixed default metric')
})

t.test('a stdio child that keeps exiting → mcp_gateway_stdio_restarts_total counts each restart', async (t) => {
  const backends = [{ name: 'crashy', transport: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] }]
  const gateway = await startGateway(t, { backends }, { logs: true, logLevel: 'debug' })
  await gateway.logs!.waitFor((r) => r.msg === 'stdio backend restart scheduled')
  const text = await scrape(createRawClient(t, gateway.url))
  t.ok(metricValue(text, 'mcp_gateway_stdio_restarts_total', { backend: 'crashy' }) >= 1)
  t.equal(metricValue(text, 'mcp_gateway_backend_up', { backend: 'crashy' }), 0)
})

t.test('README "Metrics" tables ↔ /metrics of a gateway after traffic: the same series, both ways', async (t) => {
  const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] })
  const raw = createRawClient(t, gateway.url)
  await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'x' } })
  await raw.rpc('tools/list')
  const exposed = exposedMetrics(await scrape(raw))
  const documented = documentedMetrics()
  const undocumented = [...exposed].filter((name) => !documented.all.has(name))
  const optional = (name: string): boolean => documented.redisOnly.has(name) || (process.platform !== 'linux' && documented.linuxOnly.has(name))
  const missing = [...documented.all].filter((name) => !exposed.has(name) && !optional(name))
  t.same(undocumented, [], 'every exposed metric has a README row')
  t.same(missing, [], 'every README row is exposed')
  // Without redisUrl the Redis series are not registered (the replica tests scrape them with it).
  t.same([...documented.redisOnly].filter((name) => exposed.has(name)), [], 'no Redis series without redisUrl')
  t.ok(documented.redisOnly.size >= 5, 'the Redis rows are marked')
  t.ok(documented.all.size >= 40, `the tables were read (${documented.all.size} rows)`)
})
