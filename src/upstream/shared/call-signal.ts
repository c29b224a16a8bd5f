// One AbortSignal per upstream call: aborted by the caller (CANCEL-1/2) or by the backend's
// timeout (CANCEL-8). Cheaper than AbortSignal.any + AbortSignal.timeout on the hot path, and the
// timer is cleared as soon as the call no longer needs it.
export class CallSignal {
  readonly #controller = new AbortController()
  readonly #caller: AbortSignal
  readonly #timer: NodeJS.Timeout
  #timedOut = false

  constructor(caller: AbortSignal, timeoutMs: number) {
    this.#caller = caller
    if (caller.aborted) this.#controller.abort(caller.reason)
    else caller.addEventListener('abort', this.#onCallerAbort, { once: true })
    this.#timer = setTimeout(this.#onTimeout, timeoutMs)
    this.#timer.unref()
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get timedOut(): boolean {
    return this.#timedOut
  }

  dispose(): void {
    clearTimeout(this.#timer)
    this.#caller.removeEventListener('abort', this.#onCallerAbort)
  }

  readonly #onCallerAbort = (): void => {
    this.#controller.abort(this.#caller.reason)
  }

  readonly #onTimeout = (): void => {
    this.#timedOut = true
    this.#controller.abort(new DOMException('backend call timed out', 'TimeoutError'))
  }
}
