// Single use of sealed MRTR state (MRTR-9): a requestState is claimed by the retry that carries it,
// once; a replay of the same state after its round is refused. A port: in memory for one replica,
// a shared store (Redis SET NX with the token's expiry) for N, so that a replay reaching another
// replica is refused too.
export interface ReplayStore {
  // True the first time `id` is claimed; false when it was claimed already. The claim is kept until
  // `expiresAtMs` (the token's own expiry): after that the token no longer opens anyway.
  claim(id: string, expiresAtMs: number): Promise<boolean>
}

export interface MemoryReplayStoreOptions {
  now?: () => number
}

// Claimed ids with their expiry. Expired ones are swept when the map has doubled since the last
// sweep, so memory stays proportional to the tokens claimed within one lifetime.
export class MemoryReplayStore implements ReplayStore {
  readonly #claimed = new Map<string, number>()
  readonly #now: () => number
  #sweepAt = 1024

  constructor(options: MemoryReplayStoreOptions = {}) {
    this.#now = options.now ?? Date.now
  }

  get size(): number {
    return this.#claimed.size
  }

  async claim(id: string, expiresAtMs: number): Promise<boolean> {
    const now = this.#now()
    if (this.#claimed.size >= this.#sweepAt) this.#sweep(now)
    const held = this.#claimed.get(id)
    if (held !== undefined && held >= now) return false
    this.#claimed.set(id, expiresAtMs)
    return true
  }

  #sweep(now: number): void {
    for (const [id, expiresAt] of this.#claimed) if (expiresAt < now) this.#claimed.delete(id)
    this.#sweepAt = Math.max(1024, this.#claimed.size * 2)
  }
}
