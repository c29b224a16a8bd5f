// The one deadline mechanism of upstream calls (every transport, probes included): one AbortSignal
// per call, aborted by the caller (CANCEL-1/2) or by the call's timeout (CANCEL-8). Cheaper than
// AbortSignal.any + AbortSignal.timeout on the hot path, and the timer is cleared as soon as the
// call no longer needs it (`dispose`). The timer is unref()'d: it never holds the process open.
export class CallSignal {
  readonly #controller = new AbortController()
  readonly #caller: AbortSignal | undefined
  readonly #timer: NodeJS.Timeout | undefined
  #timedOut = false

  // Without a caller signal only the timeout can abort it.
  constructor(caller: AbortSignal | undefined, timeoutMs: number) {
    this.#caller = caller
    if (caller?.aborted) {
      this.#controller.abort(caller.reason)
      return
    }
    // Without `once`: an abort fires once anyway, and dispose() removes the listener (an options
    // object is validated and kept per listener).
    caller?.addEventListener('abort', this.#onCallerAbort)
    this.#timer = setTimeout(this.#onTimeout, timeoutMs)
    this.#timer.unref()
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get timedOut(): boolean {
    return this.#timedOut
  }

  // The call is over: neither the timeout nor the caller can abort it any more.
  dispose(): void {
    clearTimeout(this.#timer)
    this.#caller?.removeEventListener('abort', this.#onCallerAbort)
  }

  readonly #onCallerAbort = (): void => {
    clearTimeout(this.#timer)
    this.#controller.abort(this.#caller?.reason)
  }

  readonly #onTimeout = (): void => {
    this.#timedOut = true
    this.#caller?.removeEventListener('abort', this.#onCallerAbort)
    this.#controller.abort(new DOMException('backend call timed out', 'TimeoutError'))
  }
}
