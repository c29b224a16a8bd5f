// Behind a load balancer (trustProxy) every anonymous client arrives from the balancer's address:
// the fair scheduler must key them by the X-Forwarded-For address, as the rate limit does (one
// function, clientAddress). Before: the scheduler keyed them by the socket address, so one
// flooding client behind the balancer queued everyone else behind its own calls.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
// Long enough that a loaded machine answers the victim well inside it.
const QUEUE_TIMEOUT_MS = 3_000
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, {
  trustProxy: true,
  backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }],
  limits: { callsPerClient: 1, queueTimeoutMs: QUEUE_TIMEOUT_MS },
})
// Both through the same "balancer" address; only X-Forwarded-For tells them apart.
const balancer = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })
const as = (address: string) => ({ 'x-forwarded-for': `203.0.113.99, ${address}` })

t.test('the attacker\'s calls queue behind its own; the victim behind the same balancer is served at once', async (t) => {
  const controller = new AbortController()
  t.teardown(() => controller.abort())
  // One call held by the backend (answers only when aborted): the attacker's one slot.
  const held = balancer.stream('tools/call', { name: 'h__slow', arguments: {} }, { id: 'held', headers: as('10.0.0.2'), signal: controller.signal }).catch(() => undefined)
  await backend.waitForEvent('held')
  const queued = await balancer.rpc('tools/call', { name: 'h__echo', arguments: { text: 'a' } }, { id: 'queued', headers: as('10.0.0.2') })
  t.match(queued.json, { error: { code: -32603, message: /No free slot/ } }, 'the attacker\'s second call waits for its own slot and times out')
  const started = performance.now()
  const served = await balancer.rpc('tools/call', { name: 'h__echo', arguments: { text: 'v' } }, { id: 'victim', headers: as('10.0.0.1') })
  t.match(served.json, { result: { content: [{ text: 'echo:v' }] } }, 'the victim is not queued behind the attacker')
  t.ok(performance.now() - started < QUEUE_TIMEOUT_MS, 'answered before the queue timeout')
  controller.abort()
  await held
})
