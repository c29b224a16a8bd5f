// The MCP requests being answered now, so a shutdown that reaches its deadline can end each one
// with a JSON-RPC error event and its access line instead of a silent cut (README "Operations").
export interface InFlightRequest {
  // What the final log line says about it.
  readonly summary: { reqId: string; rpcMethod?: string; tool?: string }
  // Ends the request now with `reason` (idempotent).
  cut(reason: string): void
}

export class InFlight {
  readonly #requests = new Set<InFlightRequest>()

  get size(): number {
    return this.#requests.size
  }

  add(request: InFlightRequest): void {
    this.#requests.add(request)
  }

  // It ended (a request cut already is gone).
  delete(request: InFlightRequest): void {
    this.#requests.delete(request)
  }

  // Cuts every request still in flight; what was cut, for the final log line.
  cutAll(reason: string): Array<InFlightRequest['summary']> {
    const cut = [...this.#requests]
    this.#requests.clear()
    for (const request of cut) request.cut(reason)
    return cut.map((request) => request.summary)
  }
}
