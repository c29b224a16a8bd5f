// One POST to an HTTP backend through undici's dispatch API, without its request() layer (issue 8:
// that layer's response stream, abort listener and async resource cost more per call than the
// call's own protocol work). A reply that is not an SSE stream is read whole here (JSON, the
// common case) and the promise resolves at its end with its text; an SSE stream resolves at its
// headers with a Readable body read on by its reader, the connection paused while that body is
// full. The call's deadline (CallSignal) aborts it: the promise fails, or the body once streaming.
import { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { keepsBody, type HttpReply } from './http-reply.ts'
import { isEventStream } from './reply-reader.ts'
import type { CancelSignal } from '../shared/cancel-signal.ts'

// What aborts a request: a call's CallSignal, or a plain AbortSignal (abortSourceOf).
export interface AbortSource {
  // `listener` hears the abort, at once when it happened already.
  onAbort(listener: (reason: unknown) => void): void
  // An SSE reply is over (its end, or its failure): nothing can abort it any more. It ends after the
  // call's final message was read, so the call's deadline is let go of here, not when the call
  // returns (a JSON reply's is, by its caller); kept, it held the finished call for timeoutMs.
  dispose?(): void
}

export interface DispatchedPost {
  path: string
  headers: Record<string, string>
  body: string
  // Aborts the request (the caller went away, or the call's timeout).
  abort: AbortSource
  // Each chunk of a buffered reply is held first (the reply budget); a throw aborts the request.
  meter?: { hold(bytes: number): void }
}

export function abortSourceOf(signal: CancelSignal): AbortSource {
  return {
    onAbort(listener) {
      if (signal.aborted) listener(signal.reason)
      else signal.addEventListener('abort', () => listener(signal.reason), { once: true })
    },
  }
}

// A reply read whole: its text is there already, and its body has nothing left to read.
const READ_BODY: HttpReply['body'] = {
  async *[Symbol.asyncIterator]() {},
  dump: () => Promise.resolve(),
}

export function dispatchPost(dispatcher: Dispatcher, post: DispatchedPost): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const handler = new PostHandler(resolve, reject, post)
    post.abort.onAbort((reason) => handler.abort(reason instanceof Error ? reason : new Error(String(reason))))
    if (handler.aborted) return
    dispatcher.dispatch({ path: post.path, method: 'POST', headers: post.headers, body: post.body }, handler)
  })
}

class PostHandler implements Dispatcher.DispatchHandler {
  readonly #resolve: (reply: HttpReply) => void
  readonly #reject: (err: Error) => void
  readonly #meter: DispatchedPost['meter']
  readonly #source: AbortSource
  #controller: Dispatcher.DispatchController | undefined
  #reason: Error | undefined
  #settled = false
  #statusCode = 0
  #headers: HttpReply['headers'] = {}
  // A buffered reply's chunks; undefined while discarding one that is neither JSON nor an error.
  #chunks: Buffer[] | undefined
  #stream: StreamBody | undefined

  constructor(resolve: (reply: HttpReply) => void, reject: (err: Error) => void, post: DispatchedPost) {
    this.#resolve = resolve
    this.#reject = reject
    this.#meter = post.meter
    this.#source = post.abort
  }

  get aborted(): boolean {
    return this.#reason !== undefined
  }

  // Before the request started (queued for a connection) the promise fails now and the request is
  // aborted once it starts.
  abort(reason: Error): void {
    if (this.#reason !== undefined) return
    this.#reason = reason
    if (this.#controller !== undefined) this.#controller.abort(reason)
    else this.#fail(reason)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    if (this.#reason !== undefined) controller.abort(this.#reason)
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: HttpReply['headers']): void {
    if (statusCode < 200) return
    this.#statusCode = statusCode
    this.#headers = headers
    const type = headers['content-type']
    const contentType = Array.isArray(type) ? type[0] : type
    if (isEventStream(contentType)) {
      this.#stream = new StreamBody(controller)
      this.#settle({ statusCode, headers, body: this.#stream })
    } else if (keepsBody({ statusCode, headers })) this.#chunks = []
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#stream !== undefined) {
      if (!this.#stream.push(chunk)) controller.pause()
      return
    }
    if (this.#chunks === undefined) return
    try {
      this.#meter?.hold(chunk.length)
    } catch (err) {
      return this.abort(err as Error)
    }
    this.#chunks.push(chunk)
  }

  onResponseEnd(): void {
    this.#streamOver()
    if (this.#stream !== undefined) return this.#stream.complete()
    const chunks = this.#chunks
    const text = chunks === undefined || chunks.length === 0 ? '' : chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')
    this.#settle({ statusCode: this.#statusCode, headers: this.#headers, body: READ_BODY, text })
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.#streamOver()
    if (this.#stream !== undefined) this.#stream.fail(err)
    else this.#fail(err)
  }

  // Not an error status's stream: a 401 may be retried under the same deadline.
  #streamOver(): void {
    if (this.#stream !== undefined && this.#statusCode < 400) this.#source.dispose?.()
  }

  #settle(reply: HttpReply): void {
    if (this.#settled) return
    this.#settled = true
    this.#resolve(reply)
  }

  #fail(err: Error): void {
    if (this.#settled) return
    this.#settled = true
    this.#reject(err)
  }
}

// An SSE reply's body: read as it arrives; destroyed before its end, the request is aborted.
class StreamBody extends Readable {
  readonly #controller: Dispatcher.DispatchController
  #ended = false

  constructor(controller: Dispatcher.DispatchController) {
    super()
    this.#controller = controller
  }

  complete(): void {
    this.#ended = true
    this.push(null)
  }

  // The request failed: the reader hears why.
  fail(err: Error): void {
    this.#ended = true
    this.destroy(err)
  }

  // Not read on (a 401 retried, a reply not wanted): the request ends here.
  dump(): Promise<void> {
    this.destroy()
    return Promise.resolve()
  }

  override _read(): void {
    this.#controller.resume()
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.#ended) this.#controller.abort(err ?? new Error('reply stream closed before its end'))
    callback(err)
  }
}
