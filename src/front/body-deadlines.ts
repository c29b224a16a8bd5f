// Slow bodies (README "Limits"): a request body must keep arriving (limits.bodyIdleMs between
// chunks) and be complete within limits.bodyTimeoutMs. One sweeper for all requests: each body
// being read is one Map entry (its start time: most bodies are complete before the first tick and
// are simply dropped), and only a body still arriving at a tick gets its progress tracked, against
// the socket's byte count: no chunk pays anything and no timer is created per request. A late body
// fails its read with 408 (the body reader's error goes to refuse(), which closes the connection).
import type { IncomingMessage } from 'node:http'
import { GatewayError } from '../errors.ts'

interface Progress {
  started: number
  bytes: number
  progressAt: number
}

export interface BodyDeadlineOptions {
  idleMs: number
  totalMs: number
}

export class BodyDeadlines {
  // Requests whose body had not arrived when they came in: their start time.
  readonly #arriving = new Map<IncomingMessage, number>()
  // Those still arriving at a tick: their progress.
  readonly #reading = new Map<IncomingMessage, Progress>()
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
    this.#arriving.set(req, Date.now())
  }

  // The body was read whole: forgotten now, not at the next tick (kept until then, every request
  // of the last second would outlive the young generation and be promoted).
  readonly settled = (req: IncomingMessage): void => {
    if (this.#arriving.delete(req)) return
    this.#reading.delete(req)
  }

  close(): void {
    clearInterval(this.#timer)
    this.#arriving.clear()
    this.#reading.clear()
  }

  #sweep(): void {
    const now = Date.now()
    for (const [req, started] of this.#arriving) {
      if (!req.complete && !req.destroyed) this.#reading.set(req, { started, bytes: req.socket?.bytesRead ?? 0, progressAt: started })
    }
    this.#arriving.clear()
    for (const [req, progress] of this.#reading) {
      if (req.complete || req.destroyed) {
        this.#reading.delete(req)
        continue
      }
      const bytes = req.socket?.bytesRead ?? progress.bytes
      if (bytes !== progress.bytes) {
        progress.bytes = bytes
        progress.progressAt = now
      }
      if (now - progress.started <= this.#totalMs && now - progress.progressAt <= this.#idleMs) continue
      // Nobody reads the body yet (an asynchronous guard is still deciding): not the client's delay.
      if (req.listenerCount('error') === 0) continue
      this.#reading.delete(req)
      req.emit('error', new GatewayError('MCP_GATEWAY_HTTP_BODY_TIMEOUT'))
    }
  }
}
