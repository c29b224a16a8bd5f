// Access tokens the gateway obtained for itself (client credentials, token exchange), held until
// shortly before they expire; one request in flight per key however many calls wait on it.
export const MAX_CACHED_TOKENS = 10_000
// A token is renewed this long before its expiry (or at 90 % of its lifetime if that is sooner).
export const RENEW_BEFORE_MS = 60_000

export interface IssuedToken {
  accessToken: string
  // Epoch ms.
  expiresAtMs: number
}

interface Entry {
  token: IssuedToken
  renewAtMs: number
}

export class TokenCache {
  readonly #entries = new Map<string, Entry>()
  readonly #inflight = new Map<string, Promise<IssuedToken>>()
  readonly #now: () => number
  readonly #maxEntries: number

  constructor(options: { now?: () => number; maxEntries?: number } = {}) {
    this.#now = options.now ?? Date.now
    this.#maxEntries = options.maxEntries ?? MAX_CACHED_TOKENS
  }

  async obtain(key: string, fetch: () => Promise<IssuedToken>): Promise<IssuedToken> {
    const entry = this.#entries.get(key)
    if (entry && entry.renewAtMs > this.#now()) return entry.token
    let pending = this.#inflight.get(key)
    if (!pending) {
      const issuedAt = this.#now()
      pending = fetch().then((token) => {
        this.#store(key, token, issuedAt)
        return token
      }).finally(() => this.#inflight.delete(key))
      this.#inflight.set(key, pending)
    }
    return pending
  }

  // The backend refused this token: forget it, unless a newer one has replaced it meanwhile.
  invalidate(key: string, accessToken: string): void {
    if (this.#entries.get(key)?.token.accessToken === accessToken) this.#entries.delete(key)
  }

  get size(): number {
    return this.#entries.size
  }

  #store(key: string, token: IssuedToken, issuedAt: number): void {
    const lifetime = Math.max(0, token.expiresAtMs - issuedAt)
    const renewAtMs = token.expiresAtMs - Math.min(RENEW_BEFORE_MS, lifetime / 10)
    if (this.#entries.size >= this.#maxEntries && !this.#entries.has(key)) {
      const now = this.#now()
      for (const [k, e] of this.#entries) if (e.renewAtMs <= now) this.#entries.delete(k)
      if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string)
    }
    this.#entries.set(key, { token, renewAtMs })
  }
}
