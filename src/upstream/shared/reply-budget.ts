// The gateway's memory budget for backend replies (README "Limits"): the bytes of replies being
// read and buffered at once, across every backend, are at most `limitBytes`. Each call reads its
// reply through a ReplyMeter: a JSON reply holds its bytes until it is parsed, an SSE reply those of
// the event being read. A reply that would take the total past the budget fails that call with a
// BackendError naming its backend (reason reply_budget, -32603); the others keep theirs.
import { BackendError } from '../backend.ts'

const MIB = 1024 * 1024

export class ReplyBudget {
  readonly limitBytes: number
  #inFlight = 0

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes
  }

  // Bytes of backend replies buffered now (mcp_gateway_reply_bytes_in_flight).
  get inFlight(): number {
    return this.#inFlight
  }

  meter(backend: string): ReplyMeter {
    return new ReplyMeter(this, backend)
  }

  // False when `bytes` more would pass the budget (nothing is reserved then).
  reserve(bytes: number): boolean {
    if (this.#inFlight + bytes > this.limitBytes) return false
    this.#inFlight += bytes
    return true
  }

  release(bytes: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - bytes)
  }
}

// One reply's share of the budget.
export class ReplyMeter {
  readonly #budget: ReplyBudget
  readonly #backend: string
  #held = 0
  #closed = false

  constructor(budget: ReplyBudget, backend: string) {
    this.#budget = budget
    this.#backend = backend
  }

  // A chunk arrived and is kept; throws when the budget cannot take it.
  hold(bytes: number): void {
    if (this.#closed) return
    if (!this.#budget.reserve(bytes)) {
      const held = this.#held
      this.close()
      const mib = (n: number): string => `${(n / MIB).toFixed(1)} MiB`
      throw new BackendError(this.#backend, 'reply_budget',
        `reply from backend "${this.#backend}" stopped at ${mib(held + bytes)}: the gateway buffers at most ${mib(this.#budget.limitBytes)} of replies at once (limits.replyBytesInFlight)`)
    }
    this.#held += bytes
  }

  // What was held is no longer buffered (an SSE event was handed on).
  releaseHeld(): void {
    this.#budget.release(this.#held)
    this.#held = 0
  }

  // The reply is read: everything released; later chunks (a drained stream) are not counted.
  close(): void {
    this.releaseHeld()
    this.#closed = true
  }
}

// The body, each chunk held by `meter` before it is read on.
export async function* meterBody<T extends Buffer | string>(body: AsyncIterable<T>, meter: ReplyMeter): AsyncGenerator<T> {
  for await (const chunk of body) {
    meter.hold(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length)
    yield chunk
  }
}
