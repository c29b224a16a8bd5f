// The reply to one legacy POST (LEGACY-8): JSON when nothing streamed; else an SSE stream whose first
// event is the priming one (an event id, empty data), then related notifications and requests,
// then the response. Built on the one ReplyStream (lazy commit, backpressure).
import type { ServerResponse } from 'node:http'
import { encodePrimingEvent, primingEventId } from '../../protocol/legacy/sse.ts'
import type { ReplyStream } from '../reply-stream.ts'

export class LegacyStream {
  readonly #stream: ReplyStream
  readonly #res: ServerResponse
  // The call's tag, drawn only when something streams (most calls answer as JSON).
  readonly #tag: () => string

  constructor(stream: ReplyStream, res: ServerResponse, tag: () => string) {
    this.#stream = stream
    this.#res = res
    this.#tag = tag
  }

  get gone(): boolean {
    return this.#stream.gone
  }

  // A notification or a server-initiated request of this call (SSE-1, LEGACY-8).
  send(message: object): void {
    if (this.#stream.gone) return
    if (!this.#stream.committed) {
      this.#stream.openStream()
      this.#stream.writeRaw(encodePrimingEvent(primingEventId(this.#tag())))
    }
    this.#stream.notify(message)
  }

  // The response: a JSON-RPC result or error, always in band (HTTP 200) once dispatched.
  finish(message: object): void {
    this.#stream.finish(message, 200)
  }

  // CANCEL-5: a cancelled request gets no response; its stream just ends (an SSE stream without
  // events when nothing was sent, which a client reads as over).
  endWithoutReply(): void {
    if (this.#stream.gone) return
    if (!this.#stream.committed) this.#stream.openStream()
    this.#res.end()
  }
}
