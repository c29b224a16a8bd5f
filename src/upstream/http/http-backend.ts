// A Streamable HTTP backend: one undici Pool, JSON or SSE replies, cancel by closing the stream
// (CANCEL-2), timeouts per backend (CANCEL-8), era probe and re-probe with backoff. A backend that
// turns out to be 2025-11-25 (ERA-1, ERA-4) is spoken to through a legacy session (LEGACY-C1..C7).
import { Pool } from 'undici'
import type { Logger } from '../../observability/logger.ts'
import type { HttpBackendConfig } from '../../config/types.ts'
import { buildModernMeta, classifyDiscover, type ProbeOutcome } from '../../protocol/era.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import { BackendError, ERA, type Backend, type BackendStatus, type Era, type ListenSink, type UpstreamCall, type UpstreamReply } from '../backend.ts'
import { BackendState } from '../shared/backend-state.ts'
import { FailureProbe } from '../shared/failure-probe.ts'
import type { ReplyBudget, ReplyMeter } from '../shared/reply-budget.ts'
import { CallSignal } from '../shared/call-signal.ts'
import { Reprober } from '../shared/reprober.ts'
import { toBackendError } from './http-errors.ts'
import { backendConnectOptions, type BackendConnectOptions } from './backend-tls.ts'
import { isStreaming, readReply, type HttpReply } from './http-reply.ts'
import { abortSourceOf, dispatchPost, type AbortSource } from './dispatch-post.ts'
import { modernRequestHeaders } from './request-headers.ts'
import { requestLegacy } from './legacy-call.ts'
import { LegacyListens } from './legacy-listen.ts'
import { LegacySession } from './legacy-session.ts'
import { BadReplyError } from './reply-reader.ts'
import { followListen } from './modern-listen.ts'
import { obtainCredential, sendAuthorized, type CredentialSource } from './backend-credentials-send.ts'
import { ANONYMOUS } from '../../auth/principal.ts'

export interface HttpBackendDeps {
  logger: Logger
  clientInfo: ServerInfo
  probeTimeoutMs?: number
  // The gateway's own credential for this backend (config `auth`); absent: static headers only.
  credentials?: CredentialSource
  // The reply bytes all backends may buffer at once (README "Limits"); absent: unbounded.
  replyBudget?: ReplyBudget
}

const MAX_EVENT_CHARS = 16 * 1024 * 1024
const DEFAULT_PROBE_TIMEOUT_MS = 5_000
// Beyond `connections` (the calls the fair scheduler lets through at once): connections for the
// gateway's own probes, list fetches and legacy session requests, so they never queue behind calls.
const CONTROL_CONNECTIONS = 4

// What a POST needs of a call.
type PostedCall = Pick<UpstreamCall, 'method' | 'params' | 'headers' | 'principal'>

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

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
  readonly #state: BackendState
  #legacy: { session: LegacySession; listens: LegacyListens } | undefined
  // A legacy session's headers: the static ones, and the gateway's own credential kept current
  // (one session serves every caller, so it carries the gateway's credential, never a caller's).
  readonly #sessionHeaders: Record<string, string>
  #nextId = 0
  // What every request carries: the configured headers, then the media types (HTTP-9).
  readonly #staticHeaders: Readonly<Record<string, string>>
  // A request that failed to connect fails alone; down takes more (shared/failure-probe.ts).
  readonly #failures: FailureProbe
  readonly #connect: BackendConnectOptions

  constructor(config: HttpBackendConfig, deps: HttpBackendDeps) {
    this.name = config.name
    this.#config = config
    this.#deps = deps
    const url = new URL(config.url)
    this.#path = url.pathname + url.search
    this.#sessionHeaders = { ...config.headers }
    this.#staticHeaders = { ...config.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    this.#origin = url.origin
    // Call deadlines are the gateway's own (CallSignal, timeoutMs): undici's idle timers are off.
    const timers = { headersTimeout: 0, bodyTimeout: 0 }
    this.#connect = backendConnectOptions(config) // https: CA, server name; h2 by ALPN
    // A backend's reply is bounded, so a runaway one cannot exhaust the gateway's memory.
    this.#pool = new Pool(url.origin, { connections: config.connections + CONTROL_CONNECTIONS, pipelining: 1, maxResponseSize: config.maxReplyBytes, ...timers, ...this.#connect })
    this.#listenPool = new Pool(url.origin, { pipelining: 1, ...timers, ...this.#connect })
    this.#reprober = new Reprober(() => this.#probe())
    this.#state = new BackendState({
      name: config.name, transport: 'http', logger: deps.logger, initialReason: 'not probed yet', downAfterFailures: config.downAfterFailures,
    })
    // server/discover only: a reachable backend (modern or legacy) keeps its era and session.
    const probe = async (): Promise<string | undefined> => {
      const verdict = classifyDiscover(await this.#discover())
      return verdict.kind === 'down' ? verdict.reason : undefined
    }
    this.#failures = new FailureProbe({ backend: config.name, state: this.#state, logger: deps.logger, probe, markDown: (reason) => this.#markDown(reason) })
  }

  async start(): Promise<void> {
    await this.#probe()
  }

  status(): BackendStatus {
    return this.#state.status()
  }

  capabilities(): JsonObject {
    return this.#state.capabilities
  }

  request(call: UpstreamCall): Promise<UpstreamReply> {
    if (this.#state.era === ERA.legacy && this.#legacy) return this.#requestLegacy(this.#legacy.session, call)
    return this.#requestModern(call)
  }

  async #requestLegacy(session: LegacySession, call: UpstreamCall): Promise<UpstreamReply> {
    const options = {
      backend: this.name, timeoutMs: this.#config.timeoutMs, maxEventChars: MAX_EVENT_CHARS, logger: this.#deps.logger, meter: this.#deps.replyBudget?.meter(this.name),
    }
    try {
      await this.#refreshSessionCredential()
      const reply = await requestLegacy(session, call, options)
      this.#state.recordSuccess()
      return reply
    } catch (err) {
      if (err instanceof BackendError && err.reason === 'unreachable') this.#failures.onConnectFailure(err.message, call.client)
      throw err
    }
  }

  async #requestModern(call: UpstreamCall): Promise<UpstreamReply> {
    const id = `gw-${++this.#nextId}`
    const deadline = new CallSignal(call.signal, this.#config.timeoutMs)
    const meter = this.#deps.replyBudget?.meter(this.name)
    let response: HttpReply | undefined
    try {
      response = await this.#post(this.#pool, call, { id, abort: deadline, meter })
      const reply = await readReply(response, { id, onNotification: call.onNotification, maxEventChars: MAX_EVENT_CHARS, meter, scan: call.passOn })
      this.#state.recordSuccess()
      return reply
    } catch (err) {
      meter?.close() // a reply that failed while read: its bytes are no longer held
      throw this.#fail(err, call, deadline)
    } finally {
      // An SSE stream is still drained after its final message: its deadline stays until the
      // stream ends (dispatch-post.ts lets go of it then).
      if (!isStreaming(response)) deadline.dispose()
    }
  }

  // AUTH-8: the Authorization a backend sees is the gateway's own for it, never the client's.
  #post(pool: Pool, call: PostedCall, request: { id: string; abort: AbortSource; meter?: ReplyMeter }): Promise<HttpReply> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: request.id, method: call.method, params: call.params })
    const headers = modernRequestHeaders(this.#staticHeaders, call)
    const { abort, meter } = request
    return sendAuthorized({
      backend: this.name, credentials: this.#deps.credentials, principal: call.principal,
      send: (authorization) => dispatchPost(pool, { path: this.#path, headers: authorization ? { ...headers, authorization } : headers, body, abort, meter }),
    })
  }

  // A long-lived subscriptions/listen stream (SUB-*): notifications go to the sink as received;
  // the sink hears onClose when it ends for any reason other than the returned closer.
  listen(filter: JsonObject, sink: ListenSink): () => void {
    // LEGACY-C4: a legacy session's GET stream instead of subscriptions/listen.
    if (this.#state.era === ERA.legacy && this.#legacy) return this.#legacy.listens.open(filter, sink)
    const controller = new AbortController()
    const params = { notifications: filter, _meta: buildModernMeta(this.#deps.clientInfo) }
    const call = { method: 'subscriptions/listen', params, signal: controller.signal }
    const open = () => this.#post(this.#listenPool, call, { id: `gw-listen-${++this.#nextId}`, abort: abortSourceOf(call.signal) })
    followListen({ open, signal: call.signal, sink, maxEventChars: MAX_EVENT_CHARS }).catch((err: unknown) => {
      this.#deps.logger.error({ backend: this.name, err }, 'listen sink failed')
    })
    return () => controller.abort()
  }

  async close(): Promise<void> {
    this.#reprober.dispose()
    await this.#dropLegacy()
    this.#state.setClosed()
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

  #fail(err: unknown, call: UpstreamCall, deadline: CallSignal): BackendError {
    const failure = toBackendError(this.name, err, { aborted: call.signal.aborted, timedOut: deadline.timedOut })
    if (failure.reason === 'unreachable') this.#failures.onConnectFailure(failure.message, call.client)
    return failure
  }

  #markDown(reason: string, era?: Era): false {
    this.#state.setDown(reason, { era })
    this.#reprober.schedule()
    return false
  }

  // ERA-1, ERA-4: server/discover first (protocol/era.ts decides); a legacy verdict is followed by
  // the initialize handshake of a legacy session (LEGACY-C1).
  async #probe(): Promise<boolean> {
    const verdict = classifyDiscover(await this.#discover())
    if (verdict.kind === 'down') return this.#markDown(verdict.reason, verdict.era)
    try {
      if (verdict.kind === 'legacy') await this.#openLegacy(verdict.note)
      else {
        await this.#dropLegacy('backend is modern now')
        const { protocolVersion, capabilities, note } = verdict
        this.#setUp({ era: ERA.modern, protocolVersion, capabilities, fields: { note } })
      }
      return true
    } catch (err) {
      return this.#markDown(describeError(err), verdict.kind)
    }
  }

  // What the probe got back, never a throw: a reply, a status without one, silence or no connection.
  async #discover(): Promise<ProbeOutcome> {
    const deadline = new CallSignal(undefined, this.#deps.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)
    const call = { method: 'server/discover', params: { _meta: buildModernMeta(this.#deps.clientInfo) } }
    const id = `gw-${++this.#nextId}`
    let response: HttpReply | undefined
    try {
      response = await this.#post(this.#pool, call, { id, abort: deadline })
      return { transport: 'http', httpStatus: response.statusCode, reply: await readReply(response, { id, maxEventChars: MAX_EVENT_CHARS }) }
    } catch (err) {
      const httpStatus = response?.statusCode
      if (err instanceof BadReplyError) return { transport: 'http', httpStatus, reply: { ok: 'invalid', detail: err.message } }
      const failure = toBackendError(this.name, err, { aborted: false, timedOut: deadline.timedOut })
      return { transport: 'http', httpStatus, reply: { ok: failure.reason === 'timeout' ? 'timeout' : 'gone', detail: failure.message } }
    } finally {
      if (!isStreaming(response)) deadline.dispose()
    }
  }

  async #openLegacy(note: string): Promise<void> {
    await this.#dropLegacy('legacy session replaced')
    await this.#refreshSessionCredential()
    const session = new LegacySession({
      backend: this.name, pool: this.#pool, path: this.#path, configHeaders: this.#sessionHeaders, clientInfo: this.#deps.clientInfo,
      logger: this.#deps.logger, maxEventChars: MAX_EVENT_CHARS, handshakeTimeoutMs: this.#deps.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    })
    await session.open()
    const listens = new LegacyListens({
      backend: this.name, origin: this.#origin, connect: this.#connect, path: this.#path, session, logger: this.#deps.logger, maxEventChars: MAX_EVENT_CHARS,
      call: (method, params) => this.#requestLegacy(session, { method, params, signal: new AbortController().signal }),
    })
    this.#legacy = { session, listens }
    const { protocolVersion, capabilities, sessionId } = session
    this.#setUp({ era: ERA.legacy, protocolVersion, capabilities, fields: { session: sessionId !== undefined, note } })
  }

  // A per-caller credential (token exchange) cannot go on a session every caller shares.
  async #refreshSessionCredential(): Promise<void> {
    if (this.#deps.credentials?.perCaller) return
    const authorization = await obtainCredential(this.name, this.#deps.credentials, ANONYMOUS)
    if (authorization !== undefined) this.#sessionHeaders.authorization = authorization
  }

  #setUp(verdict: Parameters<BackendState['setUp']>[0]): void {
    this.#state.setUp(verdict)
    this.#reprober.reset()
  }
}

export function createHttpBackend(config: HttpBackendConfig, deps: HttpBackendDeps): Backend {
  return new HttpBackend(config, deps)
}
