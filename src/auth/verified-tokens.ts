// JWTs already verified, so a caller's every request costs a Map lookup rather than a signature
// check. An entry never outlives its token's `exp` (plus the clock tolerance) nor `maxAgeMs`
// (how long jose may hold the keys anyway); the map is bounded.
import type { Principal } from './principal.ts'

export const MAX_VERIFIED_TOKENS = 10_000

export interface VerifiedTokensOptions {
  maxAgeMs: number
  toleranceMs: number
  now?: () => number
  maxEntries?: number
}

interface Entry {
  principal: Principal
  untilMs: number
}

export class VerifiedTokens {
  readonly #entries = new Map<string, Entry>()
  readonly #options: VerifiedTokensOptions
  readonly #now: () => number

  constructor(options: VerifiedTokensOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  get(token: string): Principal | undefined {
    const entry = this.#entries.get(token)
    if (entry === undefined) return undefined
    if (entry.untilMs > this.#now()) return entry.principal
    this.#entries.delete(token)
    return undefined
  }

  set(token: string, principal: Principal): void {
    const now = this.#now()
    const expiry = principal.expiresAtMs === undefined ? now : principal.expiresAtMs + this.#options.toleranceMs
    const untilMs = Math.min(expiry, now + this.#options.maxAgeMs)
    if (untilMs <= now) return
    const max = this.#options.maxEntries ?? MAX_VERIFIED_TOKENS
    if (this.#entries.size >= max) {
      for (const [key, entry] of this.#entries) if (entry.untilMs <= now) this.#entries.delete(key)
      if (this.#entries.size >= max) this.#entries.delete(this.#entries.keys().next().value as string)
    }
    this.#entries.set(token, { principal, untilMs })
  }

  get size(): number {
    return this.#entries.size
  }
}
