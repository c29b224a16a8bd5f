// Operations on real sockets: /metrics exposes the documented instruments from the app's own
// registry, the access log has one line per request, and two build() calls in one process (two
// gateways, two backends) never see each other's backends, lists or metrics.
import t, { type Test } from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway, type StartedGateway } from '../helpers/start-gateway.ts'
import { META, connectClient, createRawClient, metricValue, type RawMcpClient } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname

const [alpha, beta] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha']),
  startFixture(t, BACKEND, ['--name', 'beta']),
])

// A gateway fronting one backend, whose name is also its namespace.
function startWith(t: Test, name: string, url: string, logs = false): Promise<StartedGateway> {
  return startGateway(t, { backends: [{ name, transport: 'http', url, namespace: name }] }, { logs })
}

async function scrape(raw: RawMcpClient): Promise<string> {
  const reply = await raw.send('GET', '/metrics')
  if (reply.status !== 200) throw new Error(`/metrics: HTTP ${reply.status}`)
  return reply.text
}

t.test('/metrics after traffic → every documented instrument, bounded labels', async (t) => {
  const gateway = await startWith(t, 'a', alpha.url)
  const raw = createRawClient(t, gateway.url)
  await raw.rpc('server/discover')
  await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'm' } }, { id: 'echo-1' })
  const stream = await raw.stream('tools/call', { name: 'a__progress', arguments: { steps: 1, delayMs: 0 } }, { meta: { progressToken: 1 } })
  for await (const event of stream.events) void event
  await raw.rpc('no/such/method-xyz', {}, { id: 'weird' })
  await raw.post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])

  const reply = await raw.send('GET', '/metrics')
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^text\/plain/)
  const text = reply.text
  t.match(text, /^# TYPE mcp_gateway_requests_total counter$/m)
  t.match(text, /^# TYPE mcp_gateway_request_duration_seconds histogram$/m)
  t.match(text, /^# TYPE mcp_gateway_upstream_requests_total counter$/m)
  t.match(text, /^# TYPE mcp_gateway_backend_up gauge$/m)
  t.match(text, /^# TYPE mcp_gateway_sse_streams_active gauge$/m)
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'server/discover', outcome: 'ok' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'ok' }), 2)
  t.equal(metricValue(text, 'mcp_gateway_request_duration_seconds_count', { method: 'tools/call' }), 2)
  t.ok(metricValue(text, 'mcp_gateway_request_duration_seconds_bucket', { method: 'tools/call', le: '+Inf' }) === 2, '+Inf bucket')
  t.equal(metricValue(text, 'mcp_gateway_upstream_requests_total', { backend: 'a', outcome: 'ok' }), 2)
  t.equal(metricValue(text, 'mcp_gateway_backend_up', { backend: 'a' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'other', outcome: 'rejected' }), 1, 'unknown method → method="other"')
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'invalid', outcome: 'rejected' }), 1, 'batch → method="invalid"')
  t.notMatch(text, /no\/such\/method-xyz/, 'client-chosen method names never become labels')
  t.notMatch(text, /a__echo/, 'tool names are not labels')
})

// Refusals decided by Fastify before the handler runs (bad JSON, 413, 415, 403, 405) are MCP
// requests too; a flood of them must show in mcp_gateway_requests_total{outcome="rejected"}.
t.test('requests refused before the handler (bad JSON, 415, 403) → counted as rejected', {
  
}, async (t) => {
  const gateway = await startWith(t, 'a', alpha.url)
  const raw = createRawClient(t, gateway.url)
  t.equal((await raw.post('{')).status, 400)
  t.equal((await raw.post('{}', { 'content-type': 'application/x-www-form-urlencoded' })).status, 415)
  t.equal((await raw.post({}, { origin: 'https://evil.example' })).status, 403)
  const text = await scrape(raw)
  t.equal(metricValue(text, 'mcp_gateway_requests_total', { method: 'invalid', outcome: 'rejected' }), 3)
})

t.test('one access-log line per MCP request → method, tool, backend, outcome, duration', async (t) => {
  const gateway = await startWith(t, 'a', alpha.url, true)
  const raw = createRawClient(t, gateway.url)
  await raw.rpc('tools/call', { name: 'a__add', arguments: { a: 1, b: 2 } }, { id: 'log-1' })
  const line = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'log-1')
  t.match(line, { level: 30, rpcMethod: 'tools/call', tool: 'a__add', backend: 'a', outcome: 'ok', status: 200, durationMs: Number })
  await raw.rpc('tools/list', {}, { id: 'log-2', headers: { 'mcp-method': 'nope' } })
  const rejected = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'log-2')
  t.match(rejected, { rpcMethod: 'tools/list', outcome: 'rejected', status: 400 })
  t.notOk(JSON.stringify(line).includes(META.clientCapabilities), 'no request body at info level')
})

t.test('two build() calls in one process → separate backends, lists and metrics registries', async (t) => {
  const gatewayB = await startWith(t, 'b', beta.url)
  const rawB = createRawClient(t, gatewayB.url)

  await t.test('while both run', async (t) => {
    const gatewayA = await startWith(t, 'a', alpha.url)
    const rawA = createRawClient(t, gatewayA.url)
    t.not(gatewayA.app.registry, gatewayB.app.registry, 'each app owns its Registry')
    const [clientA, clientB] = await Promise.all([connectClient(t, gatewayA.url), connectClient(t, gatewayB.url)])
    const [listA, listB] = await Promise.all([clientA.listTools(), clientB.listTools()])
    t.ok(listA.tools.every((tool) => tool.name.startsWith('a__')), 'gateway A lists only backend a')
    t.ok(listB.tools.every((tool) => tool.name.startsWith('b__')), 'gateway B lists only backend b')
    t.equal(listA.tools.length, 5)
    t.equal(listB.tools.length, 5)
    for (let i = 0; i < 3; i++) await rawA.rpc('tools/call', { name: 'a__echo', arguments: { text: String(i) } })
    await rawB.rpc('tools/call', { name: 'b__echo', arguments: { text: 'x' } })
    await t.rejects(clientA.callTool({ name: 'b__echo', arguments: { text: 'x' } }), { code: -32602 }, 'A cannot reach B\'s tools')
    const [textA, textB] = await Promise.all([scrape(rawA), scrape(rawB)])
    t.equal(metricValue(textA, 'mcp_gateway_upstream_requests_total', { backend: 'a', outcome: 'ok' }), 3)
    t.equal(metricValue(textB, 'mcp_gateway_upstream_requests_total', { backend: 'b', outcome: 'ok' }), 1)
    t.equal(metricValue(textA, 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'ok' }), 3)
    t.equal(metricValue(textB, 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'ok' }), 1)
    t.notMatch(textA, /backend="b"/, 'A\'s registry knows nothing of backend b')
    t.notMatch(textB, /backend="a"/, 'B\'s registry knows nothing of backend a')
  })

  // Gateway A has been closed by its subtest's teardown; B is untouched.
  const reply = await rawB.rpc('tools/call', { name: 'b__echo', arguments: { text: 'after' } })
  t.match(reply.json.result, { content: [{ text: 'beta:after' }] }, 'closing A leaves B serving')
  t.equal(metricValue(await scrape(rawB), 'mcp_gateway_backend_up', { backend: 'b' }), 1)
})

t.test('/livez → 200 ok', async (t) => {
  const gateway = await startWith(t, 'a', alpha.url)
  const reply = await createRawClient(t, gateway.url).send('GET', '/livez')
  t.equal(reply.status, 200)
  t.same(reply.json, { status: 'ok' })
})

// Bodies may carry secrets (tool arguments): never logged above debug.
t.test('request bodies → not in the log at info; logged at debug', async (t) => {
  for (const level of ['info', 'debug']) {
    const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] }, { logs: true, logLevel: level })
    const raw = createRawClient(t, gateway.url)
    await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'secret-argument-42' } }, { id: `body-${level}` })
    await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === `body-${level}`)
    const mentioned = gateway.logs!.seen().some((r) => JSON.stringify(r).includes('secret-argument-42'))
    t.equal(mentioned, level === 'debug', `${level}: argument ${level === 'debug' ? 'logged' : 'not logged'}`)
  }
})
