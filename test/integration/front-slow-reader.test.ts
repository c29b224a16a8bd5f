// A client that does not read its SSE stream (issue 11 item 8, per-stream write queues): once the
// messages waiting for it pass limits.streamQueueBytes the stream is cut and its upstream call is
// cancelled (the backend sees its request closed), counted as slow_reader; a victim is served
// meanwhile. Before: the queue had no bound (eight such clients grew RSS from 224 to 800 MB).
import t from 'tap'
import { Agent } from 'undici'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { buildRpc, createRawClient, metricValue } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const QUEUE = 256 * 1024
const COUNT = 20_000
const EVENT_BYTES = 4096
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, {
  backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }],
  limits: { streamQueueBytes: QUEUE },
})
const victim = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })

t.test(`a client that never reads an ~${(COUNT * EVENT_BYTES) / 2 ** 20} MiB stream is cut, and its upstream call cancelled`, async (t) => {
  const agent = new Agent({ localAddress: '127.0.0.2' })
  t.teardown(() => agent.destroy())
  const { body, headers } = buildRpc('tools/call', { name: 'h__flood', arguments: { count: COUNT, bytes: EVENT_BYTES } }, { meta: { progressToken: 'p-1' } })
  const response = await agent.request({ origin: gateway.origin, path: '/mcp', method: 'POST', headers, body: JSON.stringify(body) })
  t.equal(response.statusCode, 200, 'the stream opened')
  // The client reads nothing from here on; the backend sees its request closed before the end.
  const closed = await backend.waitForEvent('flood-closed')
  t.ok((closed.sent as number) < COUNT, `the backend's call was cancelled after ${closed.sent} of ${COUNT} events`)
  const metrics = await (await victim.send('GET', '/metrics')).text
  t.equal(metricValue(metrics, 'mcp_gateway_limit_refusals_total', { limit: 'slow_reader', backend: '' }), 1, 'counted as slow_reader')
  const served = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'v' } })
  t.match(served.json, { result: { content: [{ text: 'echo:v' }] } }, 'the victim is served')
  response.body.destroy()
})

t.test('a client that reads its stream gets every event and the result', async (t) => {
  const stream = await victim.stream('tools/call', { name: 'h__flood', arguments: { count: 500, bytes: EVENT_BYTES } }, { meta: { progressToken: 'p-2' } })
  let progress = 0
  let last: any
  for await (const event of stream.events) {
    if (event.message.method === 'notifications/progress') progress++
    else last = event.message
  }
  t.equal(progress, 500, 'all 500 progress events')
  t.match(last, { result: { content: [{ text: 'flooded 500' }] } })
})
