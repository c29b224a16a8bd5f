// A call's cancellation (CANCEL-1: the client went away; CANCEL-2: the gateway gives up on it): the
// part of AbortSignal that calls use, so the front door raises it without an AbortController and
// each layer (fair-queue wait, deadline, bridge) listens without an EventTarget listener object.
// An AbortSignal is a CancelSignal too: tests and gateway-internal calls pass their own.
export interface CancelSignal {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

// Raised once; its listeners hear it once, in the order they were added. As with AbortSignal, a
// listener added after the abort is not called.
export class CallCancel implements CancelSignal {
  #aborted = false
  #reason: unknown
  #listeners: Array<() => void> | undefined

  get aborted(): boolean {
    return this.#aborted
  }

  get reason(): unknown {
    return this.#reason
  }

  // Every listener hears the abort once: `once` changes nothing.
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.#aborted) return
    if (this.#listeners === undefined) this.#listeners = [listener]
    else this.#listeners.push(listener)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners?.indexOf(listener) ?? -1
    if (at !== -1) this.#listeners!.splice(at, 1)
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    const listeners = this.#listeners
    this.#listeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener()
  }
}
