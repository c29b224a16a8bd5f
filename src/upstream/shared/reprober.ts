// Re-probes a down backend with the backoff of shared/backoff.ts (ERA-3: re-probe when the cached
// assumption fails); one pending attempt at a time, its timer unref()'d.
import { computeBackoffMs, REPROBE_BACKOFF, startTimer } from './backoff.ts'

export class Reprober {
  readonly #probe: () => Promise<boolean>
  #failures = 0
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  constructor(probe: () => Promise<boolean>) {
    this.#probe = probe
  }

  // Idempotent: one pending attempt at a time.
  schedule(): void {
    if (this.#timer !== undefined || this.#stopped) return
    this.#timer = startTimer(computeBackoffMs(this.#failures++, REPROBE_BACKOFF), () => {
      this.#attempt().catch(() => this.schedule())
    })
  }

  // Called on success: forget the backoff.
  reset(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#failures = 0
  }

  dispose(): void {
    this.#stopped = true
    this.reset()
  }

  async #attempt(): Promise<void> {
    this.#timer = undefined
    if (this.#stopped) return
    if (!(await this.#probe())) this.schedule()
  }
}
