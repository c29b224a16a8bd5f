// Rate limits: a token bucket per principal (per client address when anonymous). The store is a
// port: in memory for one replica now, Redis-backed for N later (ARCHITECTURE "shared-state").
import type { RateLimitConfig } from './auth-types.ts'

export interface RateDecision {
  allowed: boolean
  // Whole seconds until one request would be allowed (Retry-After); 0 when allowed.
  retryAfterS: number
  remaining: number
}

// One round trip per request at most: take one token from the bucket named `key`.
export interface RateLimitStore {
  take(key: string): Promise<RateDecision>
}

export const MAX_BUCKETS = 100_000

interface Bucket {
  tokens: number
  updatedAt: number
}

export interface MemoryBucketsOptions extends RateLimitConfig {
  now?: () => number
  maxBuckets?: number
}

export class MemoryTokenBuckets implements RateLimitStore {
  readonly #buckets = new Map<string, Bucket>()
  readonly #burst: number
  // Tokens per millisecond.
  readonly #rate: number
  readonly #now: () => number
  readonly #maxBuckets: number

  constructor(options: MemoryBucketsOptions) {
    this.#burst = options.burst
    this.#rate = options.requestsPerMinute / 60_000
    this.#now = options.now ?? Date.now
    this.#maxBuckets = options.maxBuckets ?? MAX_BUCKETS
  }

  async take(key: string): Promise<RateDecision> {
    return this.takeNow(key)
  }

  // The same decision without a promise (for callers that can use it synchronously).
  takeNow(key: string): RateDecision {
    const now = this.#now()
    let bucket = this.#buckets.get(key)
    if (bucket === undefined) {
      this.#makeRoom(now)
      bucket = { tokens: this.#burst, updatedAt: now }
      this.#buckets.set(key, bucket)
    } else {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updatedAt) * this.#rate)
      bucket.updatedAt = now
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return { allowed: true, retryAfterS: 0, remaining: Math.floor(bucket.tokens) }
    }
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate / 1000)), remaining: 0 }
  }

  get size(): number {
    return this.#buckets.size
  }

  // A bucket that has refilled completely is the same as no bucket: those go first; if every
  // bucket is in use, the least recently created one goes.
  #makeRoom(now: number): void {
    if (this.#buckets.size < this.#maxBuckets) return
    const fullAfterMs = this.#burst / this.#rate
    for (const [key, bucket] of this.#buckets) if (now - bucket.updatedAt >= fullAfterMs) this.#buckets.delete(key)
    if (this.#buckets.size >= this.#maxBuckets) this.#buckets.delete(this.#buckets.keys().next().value as string)
  }
}

// The client's address for an anonymous bucket. Behind a load balancer (`trustProxy`) it is the
// last X-Forwarded-For entry: the one our own proxy appended (entries before it are the client's
// say and could be forged).
export function clientAddress(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trustProxy: boolean): string {
  const direct = remoteAddress ?? 'unknown'
  if (!trustProxy || forwardedFor === undefined) return direct
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor
  const entries = joined.split(',').map((e) => e.trim()).filter((e) => e !== '')
  return entries.at(-1) ?? direct
}
