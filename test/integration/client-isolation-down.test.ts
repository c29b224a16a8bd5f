// One client cannot mark a backend down for everyone: a request body under the gateway's limit but
// over the backend's own makes the backend reset the connection. That fails that request only
// (-32603 naming the backend); "down" needs a failed probe or several clients' failures in a row.
// Attacker and victim are separate clients (source addresses 127.0.0.2 and 127.0.0.1) of one
// gateway in front of test/fixtures/hostile-backend.ts. Before the fix, 12.5 % of the victim's calls
// failed with "backend is down".
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient, metricValue } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const BACKEND_LIMIT = 1024 * 1024
const ATTACKS = 8
const VICTIM_CALLS = 40

const hostile = await startFixture(t, HOSTILE, ['--max-body-bytes', String(BACKEND_LIMIT)])
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: hostile.url, namespace: 'h' }] }, { logs: true })
await hostile.waitForEvent('discover')
const attacker = createRawClient(t, gateway.url, { localAddress: '127.0.0.2' })
const victim = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })

t.test(`${ATTACKS} oversized calls from one client beside ${VICTIM_CALLS} of another → only the oversized ones fail`, async (t) => {
  const oversized = 'x'.repeat(2 * BACKEND_LIMIT)
  const attacks = Array.from({ length: ATTACKS }, (_, i) => attacker.rpc('tools/call', { name: 'h__echo', arguments: { text: oversized } }, { id: `attack-${i}` }))
  const calls = Array.from({ length: VICTIM_CALLS }, (_, i) => victim.rpc('tools/call', { name: 'h__echo', arguments: { text: `v${i}` } }, { id: `victim-${i}` }))
  const [attacked, answered] = await Promise.all([Promise.all(attacks), Promise.all(calls)])
  for (const reply of attacked) {
    t.equal(reply.status, 200, `${reply.json?.id}: in band`)
    t.match(reply.json?.error, { code: -32603, data: { backend: 'h', reason: 'unreachable' } }, `${reply.json?.id}: -32603 naming the backend`)
  }
  const failed = answered.filter((reply) => reply.json?.result?.content?.[0]?.text === undefined)
  t.equal(failed.length, 0, `none of the victim's ${VICTIM_CALLS} calls failed (first: ${failed[0]?.text ?? 'none'})`)
  t.equal((await hostile.waitForEvent('reset')).event, 'reset', 'the backend did reset the oversized requests')
})

t.test('after the attack: a probe was sent and found the backend up; it is still up and listed', async (t) => {
  t.equal((await hostile.waitForEvent('discover')).event, 'discover', 'the failure triggered a probe')
  const after = await victim.rpc('tools/call', { name: 'h__echo', arguments: { text: 'after' } }, { id: 'after' })
  t.match(after.json, { id: 'after', result: { content: [{ text: 'echo:after' }] } })
  const ready = await victim.send('GET', '/readyz')
  t.match(ready.json.backends, [{ name: 'h', up: true }])
  const metrics = (await victim.send('GET', '/metrics')).text
  t.equal(metricValue(metrics, 'mcp_gateway_backend_up', { backend: 'h' }), 1)
  t.notOk(gateway.logs!.seen().some((r) => r.msg === 'backend down'), 'never logged down')
})
