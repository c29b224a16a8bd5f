// A Map whose entries expire (epoch ms): expired entries are invisible at once and swept at most
// once per interval, on writes, so memory follows what is live without a timer. One replica only.
export const SWEEP_INTERVAL_MS = 60_000

interface Entry<V> {
  value: V
  expiresAt: number
}

export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, Entry<V>>()
  readonly #now: () => number
  #nextSweepAt = 0

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  get size(): number {
    return this.#entries.size
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt > this.#now()) return entry.value
    this.#entries.delete(key)
    return undefined
  }

  set(key: K, value: V, expiresAt: number): void {
    this.#sweep()
    this.#entries.set(key, { value, expiresAt })
  }

  delete(key: K): boolean {
    return this.#entries.delete(key)
  }

  #sweep(): void {
    const now = this.#now()
    if (now < this.#nextSweepAt) return
    this.#nextSweepAt = now + SWEEP_INTERVAL_MS
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key)
  }
}
