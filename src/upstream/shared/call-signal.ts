// The one deadline mechanism of upstream calls (every transport, probes included): aborted by the
// caller (CANCEL-1/2) or by the call's timeout (CANCEL-8). Cheaper than AbortSignal.any +
// AbortSignal.timeout on the hot path, and the timer is cleared as soon as the call no longer needs
// it (`dispose`). The timer is unref()'d: it never holds the process open. Who needs an AbortSignal
// reads `signal` (made on first use); the HTTP call path registers its abort with `onAbort` and
// makes none (issue 8: one AbortController per request, the client's).
import type { CancelSignal } from './cancel-signal.ts'

export class CallSignal {
  #controller: AbortController | undefined
  readonly #caller: CancelSignal | undefined
  readonly #timer: NodeJS.Timeout | undefined
  #timedOut = false
  #aborted = false
  #reason: unknown
  #listener: ((reason: unknown) => void) | undefined

  // Without a caller signal only the timeout can abort it.
  constructor(caller: CancelSignal | undefined, timeoutMs: number) {
    this.#caller = caller
    if (caller?.aborted) {
      this.#aborted = true
      this.#reason = caller.reason
      return
    }
    // Without `once`: an abort fires once anyway, and dispose() removes the listener (an options
    // object is validated and kept per listener).
    caller?.addEventListener('abort', this.#onCallerAbort)
    this.#timer = setTimeout(this.#onTimeout, timeoutMs)
    this.#timer.unref()
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  get aborted(): boolean {
    return this.#aborted
  }

  get timedOut(): boolean {
    return this.#timedOut
  }

  // `listener` hears the abort (at once when it happened already); one listener per call.
  onAbort(listener: (reason: unknown) => void): void {
    if (this.#aborted) return listener(this.#reason)
    this.#listener = listener
  }

  // The call is over: neither the timeout nor the caller can abort it any more.
  dispose(): void {
    clearTimeout(this.#timer)
    this.#caller?.removeEventListener('abort', this.#onCallerAbort)
  }

  #abort(reason: unknown): void {
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
    this.#listener?.(reason)
  }

  readonly #onCallerAbort = (): void => {
    clearTimeout(this.#timer)
    this.#abort(this.#caller?.reason)
  }

  readonly #onTimeout = (): void => {
    this.#timedOut = true
    this.#caller?.removeEventListener('abort', this.#onCallerAbort)
    this.#abort(new DOMException('backend call timed out', 'TimeoutError'))
  }
}
