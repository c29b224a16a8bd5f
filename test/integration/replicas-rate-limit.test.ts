// One rate limit across three gateway processes behind a real nginx (README "Running N replicas"):
// the bucket lives in Redis, so a caller gets `burst` requests in all, wherever they land (with a
// bucket per replica it would get three times as many). Redis stopped → the limit fails open (every
// request passes, a log line, mcp_gateway_rate_limit_fail_open_total); Redis back → limited again.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient, metricValue } from '../helpers/mcp-client.ts'
import { replicaTestsMissing, startReplicas } from '../helpers/replicas.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const BURST = 6
const missing = replicaTestsMissing()

if (missing !== undefined) {
  t.plan(0, missing)
} else {
  const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const { gateways, lb, redis } = await startReplicas(t, {
    backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }],
    // Anonymous callers are limited by address: all of this test's requests come from one.
    rateLimit: { requestsPerMinute: 1, burst: BURST },
  })
  const raw = createRawClient(t, lb.url)

  async function statuses(count: number): Promise<{ codes: number[]; replicas: Set<string> }> {
    const codes: number[] = []
    const replicas = new Set<string>()
    for (let i = 0; i < count; i++) {
      const reply = await raw.rpc('tools/list')
      codes.push(reply.status)
      replicas.add(String(reply.headers['x-replica']))
    }
    return { codes, replicas }
  }

  t.test('one bucket across replicas: burst requests in all, then 429 on every replica', async (t) => {
    const { codes, replicas } = await statuses(BURST + 3)
    t.same(codes, [...Array(BURST).fill(200), 429, 429, 429])
    t.equal(replicas.size, 3, 'spread over the three replicas')
    const refused = await raw.rpc('tools/list')
    t.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After')
  })

  t.test('Redis stopped → fail open with a log line and a metric; back → limited again', async (t) => {
    const marks = gateways.map((gw) => gw.lines.length)
    await redis.stop()
    await Promise.all(gateways.map((gw, i) => gw.waitForLine(/redis: unreachable/, marks[i])))
    const open = await statuses(6)
    t.same(open.codes, Array(6).fill(200), 'every request passes')
    for (const gw of gateways) {
      await gw.waitForLine(/rate limit: redis unreachable; requests pass unlimited/, marks[gateways.indexOf(gw)])
      const metrics = await createRawClient(t, gw.url).send('GET', '/metrics')
      t.equal(metricValue(metrics.text, 'mcp_gateway_rate_limit_fail_open_total'), 2, `${new URL(gw.url).host}: two requests let through`)
      t.equal(metricValue(metrics.text, 'mcp_gateway_redis_up'), 0)
    }
    const back = gateways.map((gw) => gw.lines.length)
    await redis.start()
    await Promise.all(gateways.map((gw, i) => gw.waitForLine(/redis: connected/, back[i])))
    // Redis kept nothing (no persistence): a fresh bucket.
    const { codes } = await statuses(BURST + 1)
    t.same(codes, [...Array(BURST).fill(200), 429], 'limited again')
  })
}
