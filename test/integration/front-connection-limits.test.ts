// Unbounded streams and connections (issue 11 item 2), on real sockets: listen streams are capped
// per client (429 + Retry-After) and in all (503 + Retry-After), client connections are capped
// (503 + Retry-After on the wire, then closed); the victim on its own address keeps being served.
// Before: 5,000 listen streams from one client were all accepted, and at the fd limit normal calls
// failed silently.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient, metricValue, type RawMcpClient } from '../helpers/mcp-client.ts'
import { openRaw, parseResponse } from '../helpers/raw-http.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const PER_CLIENT = 3
const TOTAL = 5
const CONNECTIONS = 16
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, {
  backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }],
  limits: { streamsPerClient: PER_CLIENT, streams: TOTAL, connections: CONNECTIONS },
})
const port = Number(new URL(gateway.origin).port)
const attacker = createRawClient(t, gateway.url, { localAddress: '127.0.0.2' })
const other = createRawClient(t, gateway.url, { localAddress: '127.0.0.3' })
const victim = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })

// Opens a listen stream and leaves it open (closed at teardown); resolves with its status, its
// Retry-After and, when refused, the JSON-RPC error.
async function listen(client: RawMcpClient, id: string): Promise<{ status: number; retryAfter: unknown; error: any }> {
  const controller = new AbortController()
  t.teardown(() => controller.abort())
  const stream = await client.stream('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id, signal: controller.signal })
  if (stream.status === 200) return { status: 200, retryAfter: undefined, error: undefined }
  const first = await stream.events.next().catch(() => undefined)
  return { status: stream.status, retryAfter: stream.headers['retry-after'], error: first?.value?.message?.error }
}

t.test(`listen streams: ${PER_CLIENT} per client, ${TOTAL} in all`, async (t) => {
  for (let i = 0; i < PER_CLIENT; i++) t.equal((await listen(attacker, `a-${i}`)).status, 200, `attacker stream ${i + 1} open`)
  const refused = await listen(attacker, 'a-over')
  t.equal(refused.status, 429, `stream ${PER_CLIENT + 1} of one client → 429`)
  t.equal(refused.retryAfter, '5')
  t.equal((await listen(victim, 'v-0')).status, 200, 'the victim still opens one')
  t.equal((await listen(other, 'o-0')).status, 200, 'a third client too (5 in all)')
  const full = await listen(other, 'o-1')
  t.equal(full.status, 503, 'past the total → 503')
  t.equal(full.retryAfter, '5')
  const calls = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'v' } })
  t.match(calls.json, { result: { content: [{ text: 'echo:v' }] } }, 'the victim\'s calls are served')
})

t.test('the refused stream\'s body is a JSON-RPC error naming the limit', async (t) => {
  const { body } = await fetchError()
  t.match(body, { jsonrpc: '2.0', id: 'a-again', error: { code: -32600, message: /Too many open streams for this client/ } })
})

async function fetchError(): Promise<{ body: any }> {
  const reply = await attacker.rpc('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'a-again' })
  return { body: reply.json }
}

t.test(`connections: past ${CONNECTIONS} in all → 503 with Retry-After and a JSON-RPC error, then closed; an open connection is still served`, async (t) => {
  const held = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'before' } })
  t.equal(held.status, 200, 'the victim holds a keep-alive connection')
  let refusal: ReturnType<typeof parseResponse>
  let opened = 0
  while (refusal === undefined && opened < 2 * CONNECTIONS) {
    const conn = await openRaw(t, port, '127.0.0.2')
    opened++
    // Each connection asks /livez and stays open: 200 while accepted, the refusal once past the cap.
    const answered = new Promise<void>((resolve) => conn.socket.once('data', () => resolve()))
    conn.socket.write('GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    await Promise.race([answered, conn.closed])
    const response = parseResponse(conn.received())
    if (response?.status !== 200) refusal = response
  }
  t.ok(opened <= CONNECTIONS, `refused after ${opened} attacker connections`)
  t.equal(refusal?.status, 503)
  t.equal(refusal?.headers['retry-after'], '5')
  t.match(refusal?.json, { jsonrpc: '2.0', error: { message: /Too many connections/ } })
  const after = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'after' } })
  t.match(after.json, { result: { content: [{ text: 'echo:after' }] } }, 'the victim\'s open connection is still served')
  // Read in process: any new connection would be refused now.
  const metrics = { text: await gateway.app.registry.metrics() }
  t.ok(metricValue(metrics.text, 'mcp_gateway_limit_refusals_total', { limit: 'connections', backend: '' }) >= 1, 'connections refusal counted')
  t.equal(metricValue(metrics.text, 'mcp_gateway_limit_refusals_total', { limit: 'streams_per_client', backend: '' }), 2, 'streams_per_client counted')
  t.equal(metricValue(metrics.text, 'mcp_gateway_streams_open'), TOTAL, 'streams gauge')
  t.ok(metricValue(metrics.text, 'mcp_gateway_open_fds') > 0, 'open fds gauge')
})
