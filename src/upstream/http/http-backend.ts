// A Streamable HTTP backend: one undici Pool, JSON or SSE replies, cancel by closing the stream
// (CANCEL-2), timeouts per backend (CANCEL-8), era probe and re-probe with backoff. A backend that
// turns out to be 2025-11-25 (ERA-1, ERA-4) is spoken to through a legacy session (LEGACY-C1..C7).
import { Pool, type Dispatcher } from 'undici'
import type { Logger } from '../../observability/logger.ts'
import type { HttpBackendConfig } from '../../config/types.ts'
import type { JsonObject, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { encodeHeaderValue, HEADER } from '../../protocol/headers.ts'
import { META } from '../../protocol/meta.ts'
import { getMethodSpec } from '../../protocol/methods.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import { MODERN_VERSION } from '../../protocol/version.ts'
import { BackendError, ERA, type Backend, type BackendStatus, type Era, type ListenSink, type UpstreamCall, type UpstreamReply } from '../backend.ts'
import { toBackendError } from './http-errors.ts'
import { readReply } from './http-reply.ts'
import { requestLegacy } from './legacy-call.ts'
import { decideHttpEra, type HttpProbeOutcome } from './legacy-era.ts'
import { LegacyListens } from './legacy-listen.ts'
import { LegacySession } from './legacy-session.ts'
import { Reprober } from '../shared/reprober.ts'
import { CallSignal } from '../shared/call-signal.ts'
import { BadReplyError, isEventStream, readSse } from './reply-reader.ts'

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

export interface HttpBackendDeps {
  logger: Logger
  clientInfo: ServerInfo
  probeTimeoutMs?: number
}

const MAX_EVENT_CHARS = 16 * 1024 * 1024

export class HttpBackend implements Backend {
  readonly name: string
  readonly transport = 'http'
  readonly #config: HttpBackendConfig
  readonly #deps: HttpBackendDeps
  readonly #pool: Pool
  // Long-lived listen streams get their own connections, so they never starve ordinary calls.
  readonly #listenPool: Pool
  readonly #path: string
  readonly #origin: string
  readonly #reprober: Reprober
  #legacy: { session: LegacySession; listens: LegacyListens } | undefined
  #era: Era = ERA.unknown
  #up = false
  #reason: string | undefined = 'not probed yet'
  #capabilities: JsonObject = {}
  #nextId = 0

  constructor(config: HttpBackendConfig, deps: HttpBackendDeps) {
    this.name = config.name
    this.#config = config
    this.#deps = deps
    const url = new URL(config.url)
    this.#path = url.pathname + url.search
    this.#origin = url.origin
    // Call deadlines are the gateway's own (CallSignal, timeoutMs): undici's idle timers are off.
    const timers = { headersTimeout: 0, bodyTimeout: 0 }
    // A backend's reply is bounded, so a runaway one cannot exhaust the gateway's memory.
    this.#pool = new Pool(url.origin, { connections: config.connections, pipelining: 1, maxResponseSize: config.maxReplyBytes, ...timers })
    this.#listenPool = new Pool(url.origin, { pipelining: 1, ...timers })
    this.#reprober = new Reprober(() => this.#probe())
  }

  async start(): Promise<void> {
    await this.#probe()
  }

  status(): BackendStatus {
    const status: BackendStatus = { name: this.name, transport: 'http', era: this.#era, up: this.#up }
    if (this.#reason !== undefined) status.reason = this.#reason
    if (this.#era === ERA.modern) status.protocolVersion = MODERN_VERSION
    if (this.#era === ERA.legacy && this.#legacy) status.protocolVersion = this.#legacy.session.protocolVersion
    return status
  }

  capabilities(): JsonObject {
    return this.#capabilities
  }

  async request(call: UpstreamCall): Promise<UpstreamReply> {
    if (this.#era === ERA.legacy && this.#legacy) return this.#requestLegacy(this.#legacy.session, call)
    return this.#requestModern(call)
  }

  async #requestLegacy(session: LegacySession, call: UpstreamCall): Promise<UpstreamReply> {
    const options = { backend: this.name, timeoutMs: this.#config.timeoutMs, maxEventChars: MAX_EVENT_CHARS }
    try {
      return await requestLegacy(session, call, options)
    } catch (err) {
      if (err instanceof BackendError && err.reason === 'unreachable') this.#markDown(err.message)
      throw err
    }
  }

  async #requestModern(call: UpstreamCall): Promise<UpstreamReply> {
    const id = `gw-${++this.#nextId}`
    const deadline = new CallSignal(call.signal, this.#config.timeoutMs)
    let response: Dispatcher.ResponseData
    try {
      response = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: this.#headers(call),
        body: JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params: call.params }),
        signal: deadline.signal,
      })
    } catch (err) {
      deadline.dispose()
      throw this.#fail(err, call.signal, deadline)
    }
    // An SSE stream is still drained after its final message: its deadline stays until then.
    const streaming = isEventStream(headerValue(response.headers['content-type']))
    try {
      return await readReply(response, { id, onNotification: call.onNotification, maxEventChars: MAX_EVENT_CHARS })
    } catch (err) {
      throw this.#fail(err, call.signal, deadline)
    } finally {
      if (!streaming) deadline.dispose()
    }
  }

  // A long-lived subscriptions/listen stream (SUB-*): notifications go to the sink as received;
  // the sink hears onClose when it ends for any reason other than the returned closer.
  listen(filter: JsonObject, sink: ListenSink): () => void {
    // LEGACY-C4: a legacy session's GET stream instead of subscriptions/listen.
    if (this.#era === ERA.legacy && this.#legacy) return this.#legacy.listens.open(filter, sink)
    const controller = new AbortController()
    const params = {
      notifications: filter,
      _meta: { [META.protocolVersion]: MODERN_VERSION, [META.clientCapabilities]: {}, [META.clientInfo]: this.#deps.clientInfo },
    }
    const call = { method: 'subscriptions/listen', params, signal: controller.signal }
    const id = `gw-listen-${++this.#nextId}`
    const run = async (): Promise<string> => {
      const response = await this.#listenPool.request({
        path: this.#path, method: 'POST', headers: this.#headers(call), signal: controller.signal,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params }),
      })
      if (!isEventStream(headerValue(response.headers['content-type']))) {
        await response.body.dump()
        return `listen answered HTTP ${response.statusCode} without a stream`
      }
      sink.onOpen?.()
      await readSse(response.body, (message) => {
        if (typeof message.method === 'string' && message.method !== 'notifications/subscriptions/acknowledged') {
          sink.onNotification(message as unknown as JsonRpcNotification)
        }
        return false
      }, MAX_EVENT_CHARS)
      return 'listen stream ended'
    }
    run().then((reason) => sink.onClose(reason), (err: unknown) => {
      if (!controller.signal.aborted) sink.onClose(err instanceof Error ? err.message : String(err))
    })
    return () => controller.abort()
  }

  async close(): Promise<void> {
    this.#reprober.dispose()
    await this.#dropLegacy()
    await Promise.all([this.#pool.destroy(), this.#listenPool.destroy()])
  }

  // LEGACY-C3: DELETE the session (405 accepted); a failure is logged, never thrown.
  async #dropLegacy(reason?: string): Promise<void> {
    const legacy = this.#legacy
    this.#legacy = undefined
    if (!legacy) return
    legacy.listens.closeAll(reason)
    await legacy.session.terminate().catch((err: unknown) => {
      this.#deps.logger.warn({ backend: this.name, err }, 'could not end the legacy session')
    })
  }

  // HTTP-9, HDR-10: the backend's own view of the mirrored headers; its own credentials first.
  #headers(call: UpstreamCall): Record<string, string> {
    const meta = call.params._meta as JsonObject | undefined
    const headers: Record<string, string> = {
      ...this.#config.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      [HEADER.protocolVersion]: String(meta?.[META.protocolVersion] ?? MODERN_VERSION),
      [HEADER.method]: call.method,
    }
    const nameParam = getMethodSpec(call.method)?.nameParam
    const name = nameParam === undefined ? undefined : call.params[nameParam]
    if (typeof name === 'string') headers[HEADER.name] = encodeHeaderValue(name)
    return call.headers ? { ...headers, ...call.headers } : headers
  }

  #fail(err: unknown, clientSignal: AbortSignal, deadline: CallSignal): BackendError {
    const failure = toBackendError(this.name, err, { aborted: clientSignal.aborted, timedOut: deadline.timedOut })
    if (failure.reason === 'unreachable') this.#markDown(failure.message)
    return failure
  }

  #markDown(reason: string): void {
    if (this.#up) this.#deps.logger.warn({ backend: this.name, reason }, 'backend down')
    this.#up = false
    this.#reason = reason
    this.#reprober.schedule()
  }

  // ERA-1, ERA-4: server/discover first; a DiscoverResult means modern, a non-modern refusal
  // means legacy and the initialize handshake follows (LEGACY-C1). The verdict is logged.
  async #probe(): Promise<boolean> {
    try {
      const verdict = decideHttpEra(await this.#discover())
      if (verdict.kind === 'down') throw new BackendError(this.name, 'bad_reply', verdict.reason)
      if (verdict.kind === 'modern') {
        await this.#dropLegacy('backend is modern now')
        this.#capabilities = verdict.capabilities
        this.#deps.logger.info({ backend: this.name, era: ERA.modern, protocolVersion: MODERN_VERSION }, 'backend era detected')
        this.#setUp(ERA.modern)
        return true
      }
      await this.#openLegacy(verdict.note)
      return true
    } catch (err) {
      this.#markDown(err instanceof Error ? err.message : String(err))
      return false
    }
  }

  async #discover(): Promise<HttpProbeOutcome> {
    const signal = AbortSignal.timeout(this.#deps.probeTimeoutMs ?? 5_000)
    const params = {
      _meta: { [META.protocolVersion]: MODERN_VERSION, [META.clientCapabilities]: {}, [META.clientInfo]: this.#deps.clientInfo },
    }
    const id = `gw-${++this.#nextId}`
    const call = { method: 'server/discover', params, signal }
    try {
      const response = await this.#pool.request({
        path: this.#path, method: 'POST', headers: this.#headers(call), signal,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: call.method, params }),
      })
      const reply = await readReply(response, { id, onNotification: undefined, maxEventChars: MAX_EVENT_CHARS }).catch((err: unknown) => {
        if (err instanceof BadReplyError) return undefined
        throw err
      })
      return { status: response.statusCode, reply }
    } catch (err) {
      throw toBackendError(this.name, err, { aborted: false, timedOut: signal.aborted })
    }
  }

  async #openLegacy(note: string): Promise<void> {
    await this.#dropLegacy('legacy session replaced')
    const session = new LegacySession({
      backend: this.name, pool: this.#pool, path: this.#path, configHeaders: this.#config.headers, clientInfo: this.#deps.clientInfo,
      logger: this.#deps.logger, maxEventChars: MAX_EVENT_CHARS, handshakeTimeoutMs: this.#deps.probeTimeoutMs ?? 5_000,
    })
    await session.open()
    const listens = new LegacyListens({
      backend: this.name, origin: this.#origin, path: this.#path, session, logger: this.#deps.logger, maxEventChars: MAX_EVENT_CHARS,
      call: (method, params) => this.#requestLegacy(session, { method, params, signal: new AbortController().signal }),
    })
    this.#legacy = { session, listens }
    this.#capabilities = session.capabilities
    const { protocolVersion, sessionId } = session
    this.#deps.logger.info({ backend: this.name, era: ERA.legacy, protocolVersion, session: sessionId !== undefined, note }, 'backend era detected')
    this.#setUp(ERA.legacy)
  }

  #setUp(era: Era): void {
    if (!this.#up) this.#deps.logger.info({ backend: this.name, era }, 'backend up')
    this.#era = era
    this.#up = true
    this.#reason = undefined
    this.#reprober.reset()
  }
}

export function createHttpBackend(config: HttpBackendConfig, deps: HttpBackendDeps): Backend {
  return new HttpBackend(config, deps)
}
