// Listening to a 2025-11-25 HTTP backend (LEGACY-C4): one `GET` SSE stream per session, shared
// by every open listen, on its own connection so it never holds one of the pool's. Unsolicited
// list_changed / resources/updated notifications go to each sink whose filter asked for them, logs
// to each sink that takes them (ListenSink.onLog);
// URIs are subscribed with `resources/subscribe` and released with `resources/unsubscribe`;
// the backend's own requests on the stream are answered (LEGACY-C5).
import { Client } from 'undici'
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { ListenSink, UpstreamReply } from '../backend.ts'
import { answerServerRequest } from '../legacy/legacy-reply.ts'
import { headerValue, isServerRequest } from './http-reply.ts'
import type { LegacySession } from './legacy-session.ts'
import { isEventStream, readSse } from './reply-reader.ts'
import { isWantedByFilter, subscribedUris } from '../../protocol/subscriptions.ts'

export interface LegacyListensOptions {
  backend: string
  origin: string
  path: string
  session: LegacySession
  logger: Logger
  maxEventChars: number
  // Sends one request through the session (for resources/subscribe and unsubscribe).
  call: (method: string, params: JsonObject) => Promise<UpstreamReply>
}

export class LegacyListens {
  readonly #options: LegacyListensOptions
  readonly #sinks = new Map<ListenSink, JsonObject>()
  #controller: AbortController | undefined
  // The GET stream is up: a sink that joins now is established at once.
  #streaming = false

  constructor(options: LegacyListensOptions) {
    this.#options = options
  }

  open(filter: JsonObject, sink: ListenSink): () => void {
    this.#sinks.set(sink, filter)
    this.#subscribe('resources/subscribe', subscribedUris(filter))
    if (this.#controller === undefined) this.#start()
    else if (this.#streaming) sink.onOpen?.()
    return () => {
      if (!this.#sinks.delete(sink)) return
      this.#subscribe('resources/unsubscribe', subscribedUris(filter))
      if (this.#sinks.size === 0) this.#stop()
    }
  }

  // With a reason, every sink hears onClose (so its owner can re-open on a new session).
  closeAll(reason?: string): void {
    const sinks = [...this.#sinks.keys()]
    this.#sinks.clear()
    this.#stop()
    if (reason !== undefined) for (const sink of sinks) sink.onClose(reason)
  }

  #stop(): void {
    this.#streaming = false
    this.#controller?.abort()
    this.#controller = undefined
  }

  #subscribe(method: string, uris: string[]): void {
    for (const uri of uris) {
      this.#options.call(method, { uri }).catch((err: unknown) => {
        this.#options.logger.warn({ backend: this.#options.backend, rpcMethod: method, err }, 'legacy subscription change failed')
      })
    }
  }

  #start(): void {
    const controller = new AbortController()
    this.#controller = controller
    this.#runUntilEnd(controller).catch((err: unknown) => {
      this.#options.logger.error({ backend: this.#options.backend, err }, 'legacy listen sink failed')
    })
  }

  async #runUntilEnd(controller: AbortController): Promise<void> {
    let reason: string
    try {
      reason = await this.#run(controller.signal)
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err)
    }
    this.#ended(controller, reason)
  }

  #ended(controller: AbortController, reason: string): void {
    this.#streaming = false
    if (this.#controller === controller) this.#controller = undefined
    if (controller.signal.aborted) return
    const sinks = [...this.#sinks.keys()]
    this.#sinks.clear()
    for (const sink of sinks) sink.onClose(reason)
  }

  async #run(signal: AbortSignal): Promise<string> {
    const { origin, path, session, maxEventChars } = this.#options
    const client = new Client(origin)
    try {
      const headers = session.headers({ accept: 'text/event-stream' })
      const response = await client.request({ path, method: 'GET', headers, signal })
      if (!isEventStream(headerValue(response.headers['content-type']))) {
        await response.body.dump()
        return `GET stream answered HTTP ${response.statusCode} without a stream`
      }
      // The listen hub's catch-up after a gap keys on this (SUB-14).
      this.#streaming = true
      for (const sink of this.#sinks.keys()) sink.onOpen?.()
      await readSse(response.body, (message) => {
        this.#deliver(message)
        return false
      }, maxEventChars)
      return 'GET stream ended'
    } finally {
      await client.destroy()
    }
  }

  #deliver(message: JsonObject): void {
    if (isServerRequest(message)) return this.#options.session.respond(answerServerRequest(message))
    if (typeof message.method !== 'string') return
    const notification = message as unknown as JsonRpcNotification
    // LEGACY-9: what comes on the GET stream belongs to no request, logs included.
    if (notification.method === 'notifications/message') {
      for (const sink of this.#sinks.keys()) sink.onLog?.(notification)
      return
    }
    for (const [sink, filter] of this.#sinks) if (isWantedByFilter(notification, filter)) sink.onNotification(notification)
  }
}
