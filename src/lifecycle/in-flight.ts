// The MCP requests being answered now, so a shutdown that reaches its deadline can end each one
// with a JSON-RPC error event and its access line instead of a silent cut (README "Operations").
export interface InFlightRequest {
  // What the final log line says about it.
  readonly summary: { reqId: string; rpcMethod?: string; tool?: string }
  // Ends the request now with `reason` (idempotent).
  cut(reason: string): void
}

// A request's place in the list. Its links are InFlight's alone; a request that left has none.
export class InFlightEntry {
  prev: InFlightEntry | undefined
  next: InFlightEntry | undefined
  linked = true
  readonly request: InFlightRequest

  constructor(request: InFlightRequest) {
    this.request = request
  }
}

// A doubly linked list, not a Set (issue 8). A Set whose adds and deletes churn is rehashed every
// few dozen adds (to drop its deleted entries); V8 allocates the new table in the old generation
// when the Set lives there, and the table it replaces keeps the entries it held. Until the next
// full GC each such table kept the ~32 requests then in flight reachable, so every request was
// promoted: over 30,000 calls, 2.3 KB promoted per call and three times the scavenge pause,
// against 0.06 KB with this list. An entry that leaves is unlinked: nothing dead points at a
// live request.
export class InFlight {
  #head: InFlightEntry | undefined
  #tail: InFlightEntry | undefined
  #size = 0

  get size(): number {
    return this.#size
  }

  add(request: InFlightRequest): InFlightEntry {
    const entry = new InFlightEntry(request)
    entry.prev = this.#tail
    if (this.#tail === undefined) this.#head = entry
    else this.#tail.next = entry
    this.#tail = entry
    this.#size++
    return entry
  }

  // It ended (a request cut already is gone).
  delete(entry: InFlightEntry): void {
    if (!entry.linked) return
    entry.linked = false
    if (entry.prev === undefined) this.#head = entry.next
    else entry.prev.next = entry.next
    if (entry.next === undefined) this.#tail = entry.prev
    else entry.next.prev = entry.prev
    entry.prev = undefined
    entry.next = undefined
    this.#size--
  }

  // Cuts every request still in flight, oldest first; what was cut, for the final log line.
  cutAll(reason: string): Array<InFlightRequest['summary']> {
    const cut: InFlightRequest[] = []
    while (this.#head !== undefined) {
      cut.push(this.#head.request)
      this.delete(this.#head)
    }
    for (const request of cut) request.cut(reason)
    return cut.map((request) => request.summary)
  }
}
