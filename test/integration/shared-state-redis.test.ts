// The Redis implementations of the shared-state ports, two "replicas" (two RedisLinks, each with
// its own holder id and connections) in one process against a real redis-server: what one replica
// writes, the other sees; a hand-off reaches the holder or fails clearly; single use and one
// bucket across both; Redis down → refusals with the catalogue error, the rate limit fails open,
// and everything recovers when Redis returns.
import t from 'tap'
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { createRedisMetrics } from '../../src/observability/redis-metrics.ts'
import { RedisLink } from '../../src/shared-state/redis/redis-link.ts'
import { RedisEndedSessions } from '../../src/shared-state/redis/redis-ended-sessions.ts'
import { RedisSessionRegistry } from '../../src/shared-state/redis/redis-session-registry.ts'
import { RedisHandOff } from '../../src/shared-state/redis/redis-hand-off.ts'
import { RedisReplayStore } from '../../src/shared-state/redis/redis-replay-store.ts'
import { RedisTokenBuckets } from '../../src/shared-state/redis/redis-rate-limit.ts'
import type { SessionState } from '../../src/shared-state/session-registry.ts'
import { hasBinary, REDIS_MISSING, startRedis } from '../helpers/redis-server.ts'

if (!hasBinary('redis-server')) {
  t.plan(0, REDIS_MISSING)
} else {
  const redis = await startRedis(t)
  const logger = pino({ level: 'silent' })

  // One replica's view: its link (started, connected) and the ports built on it.
  async function replica() {
    const registry = new Registry()
    const link = new RedisLink({ url: redis.url, logger, metrics: createRedisMetrics(registry) })
    const ports = {
      link, registry,
      ended: new RedisEndedSessions(link, logger),
      sessions: new RedisSessionRegistry(link, logger),
      handOff: new RedisHandOff(link, logger),
      replays: new RedisReplayStore(link),
      buckets: new RedisTokenBuckets({ link, logger, metrics: createRedisMetrics(new Registry()), requestsPerMinute: 1, burst: 3 }),
    }
    t.teardown(() => link.close())
    const up = connected(link)
    link.start()
    await up
    return ports
  }

  const [a, b] = [await replica(), await replica()]
  const later = Date.now() + 60_000

  t.test('ended sessions: a DELETE on one replica is seen by the other, without a read from Redis', async (t) => {
    t.equal(await b.ended.isEnded('s-1'), false)
    const seen = new Promise<void>((resolve) => b.ended.watch((id) => { if (id === 's-1') resolve() }))
    await a.ended.end('s-1', later)
    await seen
    t.equal(await b.ended.isEnded('s-1'), true, 'the other replica knows')
    t.equal(await a.ended.isEnded('s-1'), true, 'the writer knows at once')
  })

  t.test('session state: level and subscriptions set via A are read on B; B is told of the change', async (t) => {
    const told: Array<[string, SessionState | undefined]> = []
    b.sessions.watch((id, state) => told.push([id, state]))
    const subscribedOnB = new Promise<void>((resolve) => b.sessions.watch((id, state) => { if (id === 's-2' && state?.subscriptions.length === 1) resolve() }))
    await a.sessions.setLogLevel('s-2', 'warning', later)
    t.same(await a.sessions.subscribe('s-2', 'file:///x', later), ['file:///x'])
    await subscribedOnB
    t.same(await b.sessions.read('s-2'), { logLevel: 'warning', subscriptions: ['file:///x'] })
    t.same(await b.sessions.subscribe('s-2', 'file:///y', later), ['file:///x', 'file:///y'], 'B adds to what A made')
    t.same(await a.sessions.unsubscribe('s-2', 'file:///x'), ['file:///y'])
    const forgotten = new Promise<void>((resolve) => b.sessions.watch((id, state) => { if (id === 's-2' && state === undefined) resolve() }))
    await a.sessions.forget('s-2')
    await forgotten
    t.same(await b.sessions.read('s-2'), { subscriptions: [] }, 'forgotten everywhere')
    t.ok(told.some(([id]) => id === 's-2'), 'B was told')
  })

  t.test('GET stream claim: one per session across replicas; released → claimable', async (t) => {
    t.equal(await a.sessions.claimStream('s-3', later), true)
    t.equal(await b.sessions.claimStream('s-3', later), false, 'held by A (alive)')
    await b.sessions.releaseStream('s-3')
    t.equal(await b.sessions.claimStream('s-3', later), false, 'B cannot release what A holds')
    await a.sessions.releaseStream('s-3')
    t.equal(await b.sessions.claimStream('s-3', later), true)
  })

  t.test('hand-off: delivered to the holder; holder gone → a clear error; nobody waiting → false', async (t) => {
    const got = new Promise((resolve) => a.handOff.expect('answer-1', resolve))
    t.equal(await b.handOff.deliver('answer-1', { result: { ok: 1 } }, a.handOff.holder), true)
    t.same(await got, { result: { ok: 1 } })
    t.equal(await b.handOff.deliver('answer-1', { result: {} }, a.handOff.holder), false, 'delivered once')
    await t.rejects(b.handOff.deliver('answer-2', {}, 'no-such-replica'), { code: 'MCP_GATEWAY_REPLICA_HOLDER_GONE' })
    const cancelled = new Promise((resolve) => a.handOff.expect('cancel-1', resolve))
    await b.handOff.deliver('cancel-1', { reason: 'x' })
    t.same(await cancelled, { reason: 'x' }, 'no holder named → broadcast')
  })

  t.test('replay store: a state claimed on A is refused on B', async (t) => {
    t.equal(await a.replays.claim('tok-1', later), true)
    t.equal(await b.replays.claim('tok-1', later), false)
  })

  t.test('rate limit: one bucket across replicas', async (t) => {
    const allowed: boolean[] = []
    for (const store of [a.buckets, b.buckets, a.buckets, b.buckets]) allowed.push((await store.take('alice')).allowed)
    t.same(allowed, [true, true, true, false], 'burst 3 for both together')
    const refused = await a.buckets.take('alice')
    t.ok(refused.retryAfterS >= 1, 'Retry-After given')
  })

  t.test('Redis down: refusals with the catalogue error, rate limit fails open; back → all works', async (t) => {
    const down = disconnected(a.link)
    await redis.stop()
    await down
    await t.rejects(a.ended.end('s-4', later), { code: 'MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE' })
    await t.rejects(a.sessions.setLogLevel('s-4', 'info', later), { code: 'MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE' })
    await t.rejects(a.handOff.deliver('k', {}, b.handOff.holder), { code: 'MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE' })
    await t.rejects(a.replays.claim('tok-2', later), { code: 'MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE' })
    t.same(await a.buckets.take('alice'), { allowed: true, retryAfterS: 0, remaining: 0 }, 'fail open')
    t.match(await a.registry.metrics(), /mcp_gateway_shared_state_unavailable_total\{what="hand_off"\} 1/)
    t.equal(await a.ended.isEnded('s-1'), true, 'what was known stays known')
    await redis.start()
    await Promise.all([connected(a.link), connected(b.link)])
    t.equal(await a.replays.claim('tok-2', later), true, 'recovered')
    const got = new Promise((resolve) => a.handOff.expect('answer-3', resolve))
    t.equal(await b.handOff.deliver('answer-3', { result: {} }, a.handOff.holder), true, 'hand-off recovered')
    await got
  })
}

// Resolves once the link is up (it reports through its onReady listeners).
function connected(link: RedisLink): Promise<void> {
  if (link.up) return Promise.resolve()
  return new Promise((resolve) => link.onReady(resolve))
}

function disconnected(link: RedisLink): Promise<void> {
  return new Promise((resolve) => link.onDown(resolve))
}

