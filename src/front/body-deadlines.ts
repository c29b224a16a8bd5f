// Slow bodies (README "Limits"): a request body must keep arriving (limits.bodyIdleMs between
// chunks) and be complete within limits.bodyTimeoutMs. One sweeper for all requests: each body
// being read is one node of a LiveList (not a Map, whose churn kept every request alive until the
// next full GC: see live-list.ts; bodies that came in several reads promoted 0.8–1 KB per call
// with the Map, 0.08 KB without), reached from its request for the removal. Most bodies are
// complete before the first tick and are simply dropped; a body still arriving at a tick gets its
// progress tracked against the socket's byte count: no chunk pays anything and no timer is
// created per request. A late body fails its read with 408 (the body reader's error goes to
// refuse(), which closes the connection).
import type { IncomingMessage } from 'node:http'
import { GatewayError } from '../errors.ts'
import { LiveList, type LiveNode } from './live-list.ts'

interface Arrival {
  readonly req: IncomingMessage
  readonly started: number
  // From the first tick that finds it still arriving: the socket's byte count, and when it moved.
  tracked: boolean
  bytes: number
  progressAt: number
}

const NODE = Symbol('body deadline')
type Watched = IncomingMessage & { [NODE]?: LiveNode<Arrival> }

export interface BodyDeadlineOptions {
  idleMs: number
  totalMs: number
}

export class BodyDeadlines {
  readonly #arriving = new LiveList<Arrival>()
  readonly #idleMs: number
  readonly #totalMs: number
  readonly #timer: NodeJS.Timeout

  constructor(options: BodyDeadlineOptions) {
    this.#idleMs = options.idleMs
    this.#totalMs = options.totalMs
    const tick = Math.max(10, Math.min(1_000, Math.floor(Math.min(options.idleMs, options.totalMs) / 4)))
    this.#timer = setInterval(() => this.#sweep(), tick).unref()
  }

  // A node 'request' listener: every request with a body still to come is watched.
  readonly watch = (req: IncomingMessage): void => {
    if (req.complete || req.method === 'GET' || req.method === 'HEAD') return
    const started = Date.now()
    const watched: Watched = req
    watched[NODE] = this.#arriving.push({ req, started, tracked: false, bytes: 0, progressAt: started })
  }

  // The body was read whole: forgotten now, not at the next tick.
  readonly settled = (req: IncomingMessage): void => {
    const node = (req as Watched)[NODE]
    if (node !== undefined) this.#forget(node)
  }

  close(): void {
    clearInterval(this.#timer)
    this.#arriving.clear()
  }

  #forget(node: LiveNode<Arrival>): void {
    const watched: Watched = node.value.req
    watched[NODE] = undefined
    this.#arriving.remove(node)
  }

  #sweep(): void {
    const now = Date.now()
    this.#arriving.forEach((node) => this.#check(node, now))
  }

  #check(node: LiveNode<Arrival>, now: number): void {
    const arrival = node.value
    const { req } = arrival
    if (req.complete || req.destroyed) return this.#forget(node)
    const bytes = req.socket?.bytesRead ?? arrival.bytes
    if (!arrival.tracked) {
      arrival.tracked = true
      arrival.bytes = bytes
    } else if (bytes !== arrival.bytes) {
      arrival.bytes = bytes
      arrival.progressAt = now
    }
    if (now - arrival.started <= this.#totalMs && now - arrival.progressAt <= this.#idleMs) return
    // Nobody reads the body yet (an asynchronous guard is still deciding): not the client's delay.
    if (req.listenerCount('error') === 0) return
    this.#forget(node)
    req.emit('error', new GatewayError('MCP_GATEWAY_HTTP_BODY_TIMEOUT'))
  }
}
