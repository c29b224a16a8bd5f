// SIGTERM in phases (README "Operations"): /readyz answers 503 at once while the gateway still
// serves for `drainDelayMs` (the load balancer moves new traffic away), then it stops accepting and
// lets in-flight requests finish until `shutdownTimeoutMs`; at that deadline every request still
// open gets a JSON-RPC error event and its access line, the app closes (backends close: legacy
// backend sessions are DELETEd), and one final log line says what was cut.
import { setTimeout as delay } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'

export interface DrainOptions {
  drainDelayMs: number
  shutdownTimeoutMs: number
  signal: string
}

// After the deadline's cut, how long closing the app (the backends' DELETEs) may still take.
const CLOSE_GRACE_MS = 2_000
const IDLE_SWEEP_MS = 100

// Resolves with the exit code: 0 when everything finished, 1 when something was cut or failed.
export async function drain(app: FastifyInstance, options: DrainOptions): Promise<number> {
  const started = Date.now()
  app.lifecycle.draining = true
  app.log.info({ signal: options.signal, drainDelayMs: options.drainDelayMs, shutdownTimeoutMs: options.shutdownTimeoutMs }, 'shutting down: /readyz answers 503, still serving')
  await delay(options.drainDelayMs)
  app.log.info({ inFlight: app.lifecycle.inFlight.size }, 'shutting down: no longer accepting connections; in-flight requests may finish')
  // Keep-alive connections that go idle once their request finishes are closed too, or a client
  // holding one open would stall the drain until the deadline.
  // An HTTP/2 server has no closeIdleConnections: its sessions get GOAWAY from close() itself.
  const idleCloser = setInterval(() => app.server.closeIdleConnections?.(), IDLE_SWEEP_MS)
  idleCloser.unref()
  const closed = app.close().then(() => undefined, (err: unknown) => err)
  const finished = await within(closed, options.shutdownTimeoutMs)
  const cut = finished.done ? [] : app.lifecycle.inFlight.cutAll('the gateway is shutting down')
  const last = finished.done ? finished : await within(closed, CLOSE_GRACE_MS)
  clearInterval(idleCloser)
  const failure = last.done ? last.value : new Error(`closing did not finish within ${CLOSE_GRACE_MS} ms of the deadline`)
  const summary = { signal: options.signal, durationMs: Date.now() - started, cut: cut.length, requests: cut, err: failure }
  if (cut.length === 0 && failure === undefined) app.log.info(summary, 'shutdown complete: every request finished')
  else app.log.error(summary, `shutdown complete: ${cut.length} request(s) cut at the ${options.shutdownTimeoutMs} ms deadline`)
  return cut.length === 0 && failure === undefined ? 0 : 1
}

type Settled<T> = { done: true; value: T } | { done: false }

async function within<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  const controller = new AbortController()
  const timeout = delay(ms, { done: false } as const, { signal: controller.signal }).catch(() => ({ done: false }) as const)
  const result = await Promise.race([promise.then((value) => ({ done: true, value }) as const), timeout])
  controller.abort()
  return result
}
