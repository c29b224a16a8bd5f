// The MCP requests being answered now, so a shutdown that reaches its deadline can end each one
// with a JSON-RPC error event and its access line instead of a silent cut (README "Operations").
// A LiveList, not a Set (src/front/live-list.ts): with a Set here, over 30,000 calls, 2.3 KB were
// promoted per call and the scavenge pause was three times as long; with the list, 0.06 KB.
import { LiveList, type LiveNode } from '../front/live-list.ts'

export interface InFlightRequest {
  // What the final log line says about it.
  readonly summary: { reqId: string; rpcMethod?: string; tool?: string }
  // Ends the request now with `reason` (idempotent).
  cut(reason: string): void
}

export type InFlightEntry = LiveNode<InFlightRequest>

export class InFlight {
  readonly #requests = new LiveList<InFlightRequest>()

  get size(): number {
    return this.#requests.size
  }

  add(request: InFlightRequest): InFlightEntry {
    return this.#requests.push(request)
  }

  // It ended (a request cut already is gone).
  delete(entry: InFlightEntry): void {
    this.#requests.remove(entry)
  }

  // Cuts every request still in flight, oldest first; what was cut, for the final log line.
  cutAll(reason: string): Array<InFlightRequest['summary']> {
    const cut: InFlightRequest[] = []
    for (let request = this.#requests.shift(); request !== undefined; request = this.#requests.shift()) cut.push(request)
    for (const request of cut) request.cut(reason)
    return cut.map((request) => request.summary)
  }
}
