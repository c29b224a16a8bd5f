// One token bucket per principal across every replica (README "Running N replicas"): one
// atomic script, one round trip per request, on Redis's clock (replicas' clocks may differ). When
// Redis cannot be asked the request goes through (fail open): a log line (at most one per interval)
// and mcp_gateway_rate_limit_fail_open_total; an outage of the limiter is not an outage of the gateway.
import type { RateDecision, RateLimitStore } from '../../auth/rate-limit.ts'
import type { RateLimitConfig } from '../../auth/auth-types.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisMetrics } from '../../observability/redis-metrics.ts'
import { KEY_PREFIX, script, type RedisLink } from './redis-link.ts'

const FAIL_OPEN_LOG_EVERY_MS = 10_000

// KEYS[1] the bucket; ARGV: burst, tokens per ms. Returns { allowed (1/0), tokens left (string) }.
const TAKE = script(`
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 't', 'u')
local tokens = tonumber(b[1]) or burst
local updated = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - updated) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'u', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return {allowed, tostring(tokens)}`)

export interface RedisRateLimitOptions extends RateLimitConfig {
  link: RedisLink
  logger: Logger
  metrics: RedisMetrics
}

export class RedisTokenBuckets implements RateLimitStore {
  readonly #options: RedisRateLimitOptions
  // Tokens per millisecond.
  readonly #rate: number
  #loggedAt = -Infinity

  constructor(options: RedisRateLimitOptions) {
    this.#options = options
    this.#rate = options.requestsPerMinute / 60_000
  }

  async take(key: string): Promise<RateDecision> {
    const { link, burst } = this.#options
    try {
      const [allowed, left] = await link.eval<[number, string]>('rate_limit', TAKE, [`${KEY_PREFIX}rate:${key}`], [String(burst), String(this.#rate)])
      const tokens = Number(left)
      if (allowed === 1) return { allowed: true, retryAfterS: 0, remaining: Math.floor(tokens) }
      return { allowed: false, retryAfterS: Math.max(1, Math.ceil((1 - tokens) / this.#rate / 1000)), remaining: 0 }
    } catch (err) {
      this.#failOpen(err)
      return { allowed: true, retryAfterS: 0, remaining: 0 }
    }
  }

  #failOpen(err: unknown): void {
    this.#options.metrics.failedOpen()
    const now = Date.now()
    if (now - this.#loggedAt < FAIL_OPEN_LOG_EVERY_MS) return
    this.#loggedAt = now
    this.#options.logger.warn({ err: String(err) }, 'rate limit: redis unreachable; requests pass unlimited (fail open)')
  }
}
