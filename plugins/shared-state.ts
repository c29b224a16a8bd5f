// The state several replicas share (README "Running N replicas"): with `redisUrl`, the Redis
// implementations of the shared-state ports (hand-off, legacy session state, ended sessions,
// single-use requestState, rate limits); without it, the in-memory ones of one replica and no
// connection at all. Connected in the background (a replica serves without Redis), closed on close.
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../src/config/types.ts'
import type { RateLimitConfig } from '../src/auth/auth-types.ts'
import type { RateLimitStore } from '../src/auth/rate-limit.ts'
import { createRedisMetrics, NEEDS_SHARED_STATE, type SharedNeed } from '../src/observability/redis-metrics.ts'
import { MemoryReplayStore, type ReplayStore } from '../src/routing/replay-store.ts'
import { MemoryEndedSessions, type EndedSessions } from '../src/shared-state/ended-sessions.ts'
import { MemoryHandOff, type HandOff } from '../src/shared-state/hand-off.ts'
import { MemorySessionRegistry, type SessionRegistry } from '../src/shared-state/session-registry.ts'
import { RedisLink } from '../src/shared-state/redis/redis-link.ts'
import { RedisEndedSessions } from '../src/shared-state/redis/redis-ended-sessions.ts'
import { RedisSessionRegistry } from '../src/shared-state/redis/redis-session-registry.ts'
import { RedisHandOff } from '../src/shared-state/redis/redis-hand-off.ts'
import { RedisReplayStore } from '../src/shared-state/redis/redis-replay-store.ts'
import { RedisTokenBuckets } from '../src/shared-state/redis/redis-rate-limit.ts'

// /readyz: whether the shared state is reachable, and what cannot be done while it is not.
export interface SharedStateStatus {
  status: 'up' | 'down'
  unavailable?: readonly string[]
}

export interface SharedState {
  ended: EndedSessions
  registry: SessionRegistry
  handOff: HandOff
  replays: ReplayStore
  // The shared rate-limit store; undefined: the in-memory one (one replica).
  rateLimitStore(limit: RateLimitConfig | undefined): RateLimitStore | undefined
  // Undefined without `redisUrl`.
  status(): SharedStateStatus | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    sharedState: SharedState
  }
}

const CANNOT: Record<SharedNeed, string> = {
  hand_off: 'a legacy client\'s answer or an MRTR retry landing on another replica than the waiting call is refused',
  session_state: 'legacy logging/setLevel, resources/subscribe and GET stream opening are refused',
  session_delete: 'DELETE of a legacy session is refused',
  state_single_use: 'MRTR retries carrying a backend requestState are refused',
  rate_limit: 'rate limits are not enforced (fail open)',
}

function inMemory(): SharedState {
  return {
    ended: new MemoryEndedSessions(), registry: new MemorySessionRegistry(), handOff: new MemoryHandOff(), replays: new MemoryReplayStore(),
    rateLimitStore: () => undefined, status: () => undefined,
  }
}

export default fp<{ config: GatewayConfig }>(async function sharedStatePlugin(app, { config }) {
  if (config.redisUrl === '') {
    app.decorate('sharedState', inMemory())
    return
  }
  const logger = app.log.child({ component: 'shared-state' })
  const metrics = createRedisMetrics(app.registry)
  const link = new RedisLink({ url: config.redisUrl, logger, metrics })
  app.decorate('sharedState', {
    ended: new RedisEndedSessions(link, logger),
    registry: new RedisSessionRegistry(link, logger),
    handOff: new RedisHandOff(link, logger),
    replays: new RedisReplayStore(link),
    rateLimitStore: (limit) => (limit === undefined ? undefined : new RedisTokenBuckets({ ...limit, link, logger, metrics })),
    status: () => (link.up ? { status: 'up' } : { status: 'down', unavailable: NEEDS_SHARED_STATE.map((need) => `${need}: ${CANNOT[need]}`) }),
  })
  link.start()
  app.addHook('onClose', async () => link.close())
}, { name: 'shared-state', dependencies: ['metrics'] })
