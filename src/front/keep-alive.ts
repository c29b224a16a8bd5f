// One timer for every long-lived SSE stream (SSE-5): a keep-alive comment to each open stream
// every interval, instead of a timer per stream (memory and wake-ups grow with stream count).
import { SSE_KEEP_ALIVE } from '../protocol/sse.ts'

export interface KeepAliveTarget {
  writeRaw(text: string): void
}

export class KeepAliveTicker {
  readonly #intervalMs: number
  readonly #streams = new Set<KeepAliveTarget>()
  #timer: NodeJS.Timeout | undefined

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs
  }

  add(stream: KeepAliveTarget): () => void {
    this.#streams.add(stream)
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#intervalMs)
      this.#timer.unref()
    }
    return () => this.#remove(stream)
  }

  #remove(stream: KeepAliveTarget): void {
    this.#streams.delete(stream)
    if (this.#streams.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }

  #tick(): void {
    for (const stream of this.#streams) stream.writeRaw(SSE_KEEP_ALIVE)
  }
}
