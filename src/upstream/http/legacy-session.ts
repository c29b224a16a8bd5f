// The gateway's own session with a 2025-11-25 HTTP backend (LEGACY-C1..C3): `initialize` →
// `notifications/initialized`, `Mcp-Session-Id` and `MCP-Protocol-Version` echoed on every later
// request, one re-initialisation shared by every call that saw the session expire, DELETE at the end.
import type { Dispatcher, Pool } from 'undici'
import type { Logger } from '../../observability/logger.ts'
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'
import { HEADER } from '../../protocol/headers.ts'
import { buildInitializeParams, checkInitializeReply } from '../../protocol/legacy/initialize.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import { LEGACY_VERSION } from '../../protocol/version.ts'
import { BackendError } from '../backend.ts'
import { answerServerRequest } from '../legacy/legacy-reply.ts'
import { CallSignal } from '../shared/call-signal.ts'
import { headerValue, readReply, type ReplyOptions } from './http-reply.ts'

export const SESSION_HEADER = 'mcp-session-id'
const TERMINATE_TIMEOUT_MS = 2_000

// LOG-7: the level a legacy backend's session is set to once it is initialized: the most verbose,
// since the gateway filters each log by the level of the client whose request it belongs to
// (src/http/notifications.ts), and drops logs that belong to no request or to a client without one.
export const LEGACY_SESSION_LOG_LEVEL = 'debug'

export function hasLoggingCapability(capabilities: JsonObject): boolean {
  return isJsonObject(capabilities.logging)
}

export interface LegacySessionOptions {
  backend: string
  pool: Pool
  path: string
  configHeaders: Record<string, string> | undefined
  clientInfo: ServerInfo
  logger: Logger
  maxEventChars: number
  handshakeTimeoutMs: number
}

export interface SentRequest {
  response: Dispatcher.ResponseData
  // The session id the request carried (to tell an expired session from a renewed one).
  sessionId: string | undefined
}

export class LegacySession {
  readonly #options: LegacySessionOptions
  #id: string | undefined
  #protocolVersion = LEGACY_VERSION
  #capabilities: JsonObject = {}
  #renewal: Promise<void> | undefined
  #nextId = 0

  constructor(options: LegacySessionOptions) {
    this.#options = options
  }

  get protocolVersion(): string {
    return this.#protocolVersion
  }

  get capabilities(): JsonObject {
    return this.#capabilities
  }

  get sessionId(): string | undefined {
    return this.#id
  }

  nextId(): string {
    return `gw-${++this.#nextId}`
  }

  // LEGACY-C1: offer the newest legacy version and the capabilities the gateway bridges (LEGACY-C5).
  // Never cancelled (CANCEL-10): only the handshake timeout can stop it.
  async open(): Promise<void> {
    this.#id = undefined
    // Not disposed: an SSE reply still draining after its final message keeps the deadline.
    const { signal } = new CallSignal(undefined, this.#options.handshakeTimeoutMs)
    await this.#initialize(signal)
    await this.notify('notifications/initialized', undefined, signal)
    await this.#setLogLevel(signal)
  }

  async #initialize(signal: AbortSignal): Promise<void> {
    const id = this.nextId()
    const params = buildInitializeParams(this.#options.clientInfo)
    const { response } = await this.post({ jsonrpc: '2.0', id, method: 'initialize', params }, signal)
    const sessionId = headerValue(response.headers[SESSION_HEADER])
    const verdict = checkInitializeReply(await readReply(response, this.#replyOptions(id)))
    if (!verdict.ok) throw new BackendError(this.#options.backend, 'bad_reply', verdict.reason)
    this.#id = sessionId
    this.#protocolVersion = verdict.protocolVersion
    this.#capabilities = verdict.capabilities
  }

  // Requests of the session's own exchanges: the backend's requests meanwhile are answered locally.
  #replyOptions(id: string): ReplyOptions {
    return { id, onServerRequest: (message) => this.respond(answerServerRequest(message)), maxEventChars: this.#options.maxEventChars }
  }

  // LEGACY-C2: a 404 on a session request → one new session, shared by every caller that saw it.
  renew(staleId: string | undefined): Promise<void> {
    if (this.#id !== staleId) return Promise.resolve()
    this.#renewal ??= this.open().finally(() => {
      this.#renewal = undefined
    })
    return this.#renewal
  }

  // LEGACY-C2: the negotiated version and the session id on everything after initialize.
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...this.#options.configHeaders, [HEADER.protocolVersion]: this.#protocolVersion, ...extra }
    if (this.#id !== undefined) headers[SESSION_HEADER] = this.#id
    return headers
  }

  async post(message: JsonObject, signal?: AbortSignal): Promise<SentRequest> {
    const sessionId = this.#id
    const headers = this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' })
    if (message.method === 'initialize') delete headers[HEADER.protocolVersion]
    const response = await this.#options.pool.request({ path: this.#options.path, method: 'POST', headers, body: JSON.stringify(message), signal })
    return { response, sessionId }
  }

  // Notifications and responses expect 202 with no body.
  async notify(method: string, params?: JsonObject, signal?: AbortSignal): Promise<void> {
    const message: JsonObject = { jsonrpc: '2.0', method }
    if (params !== undefined) message.params = params
    await this.#send(message, signal)
  }

  // LEGACY-C5: answers to the backend's own requests; failures are logged, never thrown.
  respond(message: JsonObject): void {
    this.#send(message).catch((err: unknown) => {
      this.#options.logger.warn({ backend: this.#options.backend, err }, 'could not answer a legacy backend request')
    })
  }

  // LEGACY-C6, CANCEL-10: the cancellation is a POSTed notification; failures are logged.
  cancel(requestId: string, reason: string): void {
    this.notify('notifications/cancelled', { requestId, reason }).catch((err: unknown) => {
      this.#options.logger.warn({ backend: this.#options.backend, err }, 'could not cancel a legacy backend request')
    })
  }

  // LEGACY-C3: DELETE the session when done; 405 (not allowed) is fine too.
  async terminate(): Promise<void> {
    const sessionId = this.#id
    if (sessionId === undefined) return
    this.#id = undefined
    const deadline = new CallSignal(undefined, TERMINATE_TIMEOUT_MS)
    try {
      const response = await this.#options.pool.request({
        path: this.#options.path, method: 'DELETE', headers: { ...this.headers(), [SESSION_HEADER]: sessionId }, signal: deadline.signal,
      })
      await response.body.dump()
      this.#checkTerminated(response.statusCode)
    } finally {
      deadline.dispose()
    }
  }

  #checkTerminated(statusCode: number): void {
    if (statusCode >= 300 && statusCode !== 405 && statusCode !== 404) {
      this.#options.logger.warn({ backend: this.#options.backend, status: statusCode }, 'legacy session DELETE refused')
    }
  }

  // LOG-7: `logging/setLevel` once per session, right after `notifications/initialized`, when the
  // backend declared `logging`. A refusal or failure is logged; the session stays usable.
  async #setLogLevel(signal: AbortSignal): Promise<void> {
    if (!hasLoggingCapability(this.#capabilities)) return
    const { backend, logger } = this.#options
    const id = this.nextId()
    const params = { level: LEGACY_SESSION_LOG_LEVEL }
    try {
      const { response } = await this.post({ jsonrpc: '2.0', id, method: 'logging/setLevel', params }, signal)
      const reply = await readReply(response, this.#replyOptions(id))
      // `logLevel`, not `level`: pino's own field must keep the record's level.
      const logged = { backend, logLevel: LEGACY_SESSION_LOG_LEVEL }
      if (reply.ok) logger.info(logged, 'legacy backend log level set')
      else logger.warn({ ...logged, reason: `${reply.error.message} (${reply.error.code})` }, 'legacy backend refused logging/setLevel')
    } catch (err) {
      logger.warn({ backend, err }, 'legacy backend logging/setLevel failed')
    }
  }

  async #send(message: JsonObject, signal?: AbortSignal): Promise<void> {
    const { response } = await this.post(message, signal)
    await response.body.dump()
    if (response.statusCode !== 202 && response.statusCode !== 200) {
      this.#options.logger.warn({ backend: this.#options.backend, status: response.statusCode, rpcMethod: message.method }, 'legacy backend refused a message')
    }
  }
}
