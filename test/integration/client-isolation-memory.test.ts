// Memory without a budget: before, a 60 MiB backend reply took the gateway +360 MB of RSS, four at
// once 1 GB. Now the bytes of backend replies buffered at once are bounded across backends
// (limits.replyBytesInFlight) and a reply that would pass the bound fails its own call with -32603
// naming the backend; maxReplyBytes defaults to 16 MiB, a sixteenth of the 256 MiB budget.
// Attacker 127.0.0.2 asks test/fixtures/hostile-backend.ts for four large replies that it never
// finishes (all but the last byte written); victim 127.0.0.1 asks for a small one.
import t from 'tap'
import { Agent } from 'undici'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient, metricValue, RawMcpClient, type RawReply } from '../helpers/mcp-client.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const MIB = 1024 * 1024
const BUDGET = 2 * MIB
const REPLY = 900 * 1024
const REPLIES = 4

// The first `count` of `calls` to settle.
function firstSettled(calls: Array<Promise<RawReply>>, count: number): Promise<RawReply[]> {
  const settled: RawReply[] = []
  return new Promise((resolve) => {
    for (const call of calls) {
      void call.then((reply) => {
        settled.push(reply)
        if (settled.length === count) resolve(settled)
      }, () => undefined)
    }
  })
}

t.test(`${REPLIES} held replies of 900 KiB against a 2 MiB budget → exactly 2 fail with reply_budget; another client's reply passes`, async (t) => {
  const hostile = await startFixture(t, HOSTILE)
  const gateway = await startGateway(t, {
    backends: [{ name: 'h', transport: 'http', url: hostile.url, namespace: 'h', maxReplyBytes: MIB }],
    limits: { replyBytesInFlight: BUDGET },
  })
  const agent = new Agent({ keepAliveTimeout: 1_000, localAddress: '127.0.0.2' })
  const attacker = new RawMcpClient(gateway.url, agent)
  const victim = createRawClient(t, gateway.url, { localAddress: '127.0.0.1' })
  const big = Array.from({ length: REPLIES }, (_, i) => attacker.rpc('tools/call', { name: 'h__big', arguments: { bytes: REPLY, hold: true } }, { id: `big-${i}` }))
  let settled = 0
  for (const call of big) void call.then(() => settled++, () => undefined)
  // However the chunks interleave, two held replies fit (1.8 MiB) and a third never does.
  const failed = await firstSettled(big, 2)
  for (const reply of failed) {
    t.equal(reply.status, 200, `${reply.json?.id}: in band`)
    t.match(reply.json?.error, { code: -32603, message: /reply memory budget exhausted: h: reply from backend "h" stopped/, data: { backend: 'h', reason: 'reply_budget' } },
      `${reply.json?.id}: -32603 naming the backend`)
  }
  const small = await victim.rpc('tools/call', { name: 'h__big', arguments: { bytes: 10 * 1024 } }, { id: 'small' })
  t.equal(small.json?.result?.content?.[0]?.text?.length, 10 * 1024, 'the victim\'s 10 KiB reply fits beside the two held ones')
  t.equal(settled, 2, 'the two others are still being read, held by the backend')
  const metrics = (await victim.send('GET', '/metrics')).text
  t.equal(metricValue(metrics, 'mcp_gateway_limit_refusals_total', { limit: 'reply_budget', backend: 'h' }), 2, 'both counted')
  const inFlight = metricValue(metrics, 'mcp_gateway_reply_bytes_in_flight')
  t.ok(inFlight > 0 && inFlight <= BUDGET, `reply bytes in flight ${inFlight} within the budget`)
  t.same(JSON.parse((await victim.rpc('tools/call', { name: 'h__stats', arguments: {} })).json.result.content[0].text).held, 0, 'no slow calls involved')
  await agent.destroy()
  await Promise.allSettled(big)
})

t.test('defaults → maxReplyBytes 16 MiB, replyBytesInFlight 256 MiB', async (t) => {
  const hostile = await startFixture(t, HOSTILE)
  const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: hostile.url, namespace: 'h' }] })
  t.equal(gateway.config.limits.replyBytesInFlight, 256 * MIB)
  t.match(gateway.config.backends[0], { maxReplyBytes: 16 * MIB })
  const victim = createRawClient(t, gateway.url)
  const over = await victim.rpc('tools/call', { name: 'h__big', arguments: { bytes: 17 * MIB } }, { id: 'over' })
  t.match(over.json, { id: 'over', error: { code: -32603, data: { backend: 'h', reason: 'bad_reply' } } }, 'a 17 MiB reply → refused as too large')
})
