// Writes one request's answer: JSON when nothing streamed, or an SSE stream committed lazily at the
// first notification (SSE-8), so every 4xx can still be decided before a 200 goes out. Writes
// honour backpressure (write() false → wait for 'drain'); nothing is written after the client left.
import type { ServerResponse } from 'node:http'
import { encodeSseEvent } from '../protocol/sse.ts'
import { isResponseClosed } from './http2-response.ts'

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no', // SSE-4
} as const

export interface StreamGauge {
  inc(): void
  dec(): void
}

// README "Limits": what one stream may hold for a client that does not read it (message characters
// waiting for 'drain', the final message not counted); past it the stream is cut, which cancels
// its upstream call (CANCEL-1). One object for the app, shared by every stream.
export interface StreamQueueLimit {
  readonly queueBytes: number
  slowReader(): void
}

export class ReplyStream {
  readonly #res: ServerResponse
  #gauge: StreamGauge
  #committed = false
  #ended = false
  #queue: string[] = []
  #queued = 0
  #draining = false
  readonly #limit: StreamQueueLimit | undefined

  constructor(res: ServerResponse, gauge: StreamGauge, limit?: StreamQueueLimit) {
    this.#res = res
    this.#gauge = gauge
    this.#limit = limit
  }

  // Counts this stream under another kind's gauge (a listen stream); before it opens.
  countAs(gauge: StreamGauge): void {
    if (!this.#committed) this.#gauge = gauge
  }

  get committed(): boolean {
    return this.#committed
  }

  // The client is gone (CANCEL-1): nothing more may be written.
  get gone(): boolean {
    return this.#ended || isResponseClosed(this.#res)
  }

  openStream(): void {
    if (this.#committed || this.gone) return
    this.#committed = true
    const gauge = this.#gauge
    gauge.inc()
    this.#res.once('close', () => gauge.dec())
    this.#res.writeHead(200, SSE_HEADERS)
    this.#res.flushHeaders()
  }

  notify(message: object): void {
    if (this.gone) return
    this.openStream()
    this.#write(encodeSseEvent(JSON.stringify(message)))
  }

  writeRaw(text: string): void {
    if (!this.gone && this.#committed) this.#write(text)
  }

  // The final message: the last SSE event, or a JSON body with the given status (and headers a
  // refusal needs: WWW-Authenticate, Retry-After).
  finish(message: object, status = 200, headers?: Readonly<Record<string, string>>): void {
    if (!this.gone) this.finishText(JSON.stringify(message), status, headers)
  }

  // The same with the message already serialised (a spliced result).
  finishText(body: string, status = 200, headers?: Readonly<Record<string, string>>): void {
    if (this.gone) return
    if (this.#committed) {
      this.#write(encodeSseEvent(body), true)
      this.#end()
      return
    }
    this.#ended = true
    const length = Buffer.byteLength(body)
    this.#res.writeHead(status, headers === undefined
      ? { 'content-type': 'application/json', 'content-length': length }
      : { ...headers, 'content-type': 'application/json', 'content-length': length })
    this.#res.end(body)
  }

  // An accepted notification (HTTP-5) or anything else without a body.
  finishEmpty(status: number, headers: Record<string, string> = {}): void {
    if (this.gone) return
    this.#ended = true
    this.#res.writeHead(status, headers)
    this.#res.end()
  }

  #write(text: string, final = false): void {
    if (this.#draining) {
      this.#queue.push(text)
      if (!final && this.#limit !== undefined && (this.#queued += text.length) > this.#limit.queueBytes) this.#cut(this.#limit)
      return
    }
    if (!this.#res.write(text)) {
      this.#draining = true
      this.#res.once('drain', () => this.#flush())
    }
  }

  #flush(): void {
    this.#draining = false
    const queued = this.#queue
    this.#queue = []
    this.#queued = 0
    // Re-queued after a drain: not counted again (the bound is on what arrives while the client does not read).
    for (const text of queued) this.#write(text, true)
    if (!this.#draining && this.#ended && !this.#res.writableEnded) this.#res.end()
  }

  // A client that does not read: the stream goes, and with it (CANCEL-1) its upstream call.
  #cut(limit: StreamQueueLimit): void {
    limit.slowReader()
    this.#queue = []
    this.#res.destroy()
  }

  #end(): void {
    this.#ended = true
    if (!this.#draining) this.#res.end()
  }
}
