// Re-probes a down backend with exponential backoff; timers unref()'d so they never hold the process.
export const REPROBE_MIN_MS = 500
export const REPROBE_MAX_MS = 30_000

export class Reprober {
  readonly #probe: () => Promise<boolean>
  #delayMs = REPROBE_MIN_MS
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  constructor(probe: () => Promise<boolean>) {
    this.#probe = probe
  }

  // Idempotent: one pending attempt at a time.
  schedule(): void {
    if (this.#timer !== undefined || this.#stopped) return
    this.#timer = setTimeout(() => void this.#attempt(), this.#delayMs)
    this.#timer.unref()
    this.#delayMs = Math.min(this.#delayMs * 2, REPROBE_MAX_MS)
  }

  // Called on success: forget the backoff.
  reset(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#delayMs = REPROBE_MIN_MS
  }

  stop(): void {
    this.reset()
  }

  dispose(): void {
    this.#stopped = true
    this.reset()
  }

  async #attempt(): Promise<void> {
    this.#timer = undefined
    if (this.#stopped) return
    const ok = await this.#probe().catch(() => false)
    if (!ok) this.schedule()
  }
}
