// The hand-off port (ARCHITECTURE "The legacy era"): a message for something that waits — a legacy
// client's answer to a server-initiated request, or its notifications/cancelled for a call in
// flight — reaches the waiter, wherever the POST carrying it landed. This in-memory version serves
// one replica; a shared one (Redis pub/sub) plugs in for several. One waiter per key, one delivery.
import type { JsonObject } from '../protocol/jsonrpc.ts'

export interface HandOff {
  // This replica's name in the ids its waiters give out (shared implementations route by it).
  readonly holder?: string
  // Registers the waiter for `key` (replacing none: keys are unique); returns its withdrawal.
  expect(key: string, receive: (message: JsonObject) => void): () => void
  // Hands `message` to the waiter of `key`, which stops waiting; false when nobody waits for it.
  // `holder`: the replica that gave out the id (unknown: any). A shared implementation may reject
  // with a GatewayError (holder gone, no confirmation in time, shared state unreachable).
  deliver(key: string, message: JsonObject, holder?: string): Promise<boolean>
}

export class MemoryHandOff implements HandOff {
  readonly #waiters = new Map<string, (message: JsonObject) => void>()

  get size(): number {
    return this.#waiters.size
  }

  expect(key: string, receive: (message: JsonObject) => void): () => void {
    this.#waiters.set(key, receive)
    return () => {
      if (this.#waiters.get(key) === receive) this.#waiters.delete(key)
    }
  }

  async deliver(key: string, message: JsonObject): Promise<boolean> {
    const receive = this.#waiters.get(key)
    if (receive === undefined) return false
    this.#waiters.delete(key)
    receive(message)
    return true
  }
}
