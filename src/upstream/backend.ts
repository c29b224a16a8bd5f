// The Backend interface: what routing needs from any MCP server behind the gateway,
// whatever its transport (HTTP, stdio) or era (2026-07-28 modern, 2025-11-25 legacy).
import type { Principal } from '../auth/principal.ts'
import type { JsonObject, JsonRpcErrorObject, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { CancelSignal } from './shared/cancel-signal.ts'
import type { ResultScan } from '../protocol/result-scan.ts'

export const ERA = { modern: 'modern', legacy: 'legacy', unknown: 'unknown' } as const
export type Era = (typeof ERA)[keyof typeof ERA]

export interface UpstreamCall {
  method: string
  // Params in the backend's own view: names de-prefixed, `_meta` built by the gateway
  // (protocolVersion, clientCapabilities, clientInfo, progressToken, logLevel, trace context).
  params: JsonObject
  // Aborted when the client goes away or the call times out (CANCEL-1/2/3).
  signal: CancelSignal
  // Request-scoped notifications (progress, log), with the client's progressToken restored.
  onNotification?: (notification: JsonRpcNotification) => void
  // Who asked (CallContext.client: the principal, or the client address until authentication is
  // on); absent for the gateway's own requests. One caller alone never marks a backend down.
  client?: string
  // Extra headers for HTTP backends (Mcp-Param-*), already encoded (HDR-3/HDR-10).
  headers?: Record<string, string>
  // On whose behalf (the backend's credential may depend on it: token exchange, AUTH-8). Absent: the
  // gateway's own (probes, listen fan-in).
  principal?: Principal
  // MRTR bridging (LEGACY-C5): a legacy backend's elicitation/create, sampling/createMessage or
  // roots/list sent during this call is answered with what this resolves to. Absent → refused.
  onServerRequest?: (request: ServerRequest) => Promise<ServerAnswer>
  // The result goes on to a client as it came, stamped by splicing (protocol/result-splice.ts):
  // an HTTP backend's reply is then read without JSON.parse. Absent: the gateway's own use (lists,
  // probes), which parses it.
  passOn?: boolean
}

// A backend's own request to the client (2025-11-25 only), and the JSON-RPC answer it gets.
export interface ServerRequest {
  method: string
  params?: JsonObject
}
export type ServerAnswer = { result: JsonObject } | { error: JsonRpcErrorObject }

// What a backend answered: a result object or a JSON-RPC error it returned (passed through). An
// HTTP backend's result may come as a `scan` of the reply's text (protocol/result-scan.ts), read
// without JSON.parse so that it can be passed on by splicing (protocol/result-splice.ts); its
// `result` is then built only when something asks for the object.
export type UpstreamReply =
  | { ok: true; result: JsonObject; scan?: ResultScan; toolError?: boolean }
  | { ok: false; error: JsonRpcErrorObject }

// A result read by scanning (a class: the getter is the prototype's). `toolError`: the result says
// `isError: true`, read without building it.
export class ScannedReply {
  readonly ok = true
  readonly scan: ResultScan
  readonly toolError: boolean
  #result: JsonObject | undefined

  constructor(scan: ResultScan, result?: JsonObject) {
    this.scan = scan
    this.toolError = scan.isError
    this.#result = result
  }

  get result(): JsonObject {
    return (this.#result ??= this.scan.parseResult())
  }
}

export interface BackendStatus {
  name: string
  transport: 'http' | 'stdio'
  era: Era
  up: boolean
  // Why it is down, when it is (never a secret).
  reason?: string
  protocolVersion?: string
}

// Listen streams: the backend pushes list_changed / resources/updated notifications.
export interface ListenSink {
  onNotification(notification: JsonRpcNotification): void
  onClose(reason: string): void
  // The stream is established (HTTP: the SSE response arrived). Transports that deliver the
  // backend's notifications/subscriptions/acknowledged need not call it.
  onOpen?(): void
  // The backend answered the listen request but opened no stream (HTTP 2xx JSON): it cannot
  // deliver notifications this way; instead of onClose (SUB-11: not a drop to re-open at once).
  onUnsupported?(reason: string): void
  // A notifications/message the backend sent outside any request (a legacy GET stream, a stdio
  // line while no call is in flight). Only sinks that define it get one, whatever their filter.
  onLog?(notification: JsonRpcNotification): void
}

export interface Backend {
  readonly name: string
  readonly transport: 'http' | 'stdio'
  // Probe era and readiness; never throws (a failed probe marks the backend down).
  start(): Promise<void>
  status(): BackendStatus
  // Server capabilities as the backend declared them (discover or initialize); {} when unknown.
  capabilities(): JsonObject
  // Transport failures (refused, reset, timeout, bad reply, child died) reject with a BackendError;
  // JSON-RPC errors from the backend resolve as { ok: false }.
  request(call: UpstreamCall): Promise<UpstreamReply>
  // Optional: open a long-lived subscriptions/listen (or legacy GET) stream. Returns a closer.
  listen?(filter: JsonObject, sink: ListenSink): () => void
  close(): Promise<void>
}

export const BACKEND_FAILURE = {
  unreachable: 'unreachable',
  timeout: 'timeout',
  badReply: 'bad_reply',
  closed: 'closed',
  aborted: 'aborted',
  // Gateway limits (README "Limits"): the call was refused or failed before the backend answered.
  queueFull: 'queue_full',
  queueTimeout: 'queue_timeout',
  replyBudget: 'reply_budget',
  // The backend refused the gateway's credential, or none could be obtained for it (AUTH-8, ERR-7).
  unauthorized: 'unauthorized',
} as const
export type BackendFailure = (typeof BACKEND_FAILURE)[keyof typeof BACKEND_FAILURE]

// One error class for every transport failure, with a stable reason and a cause chain.
export class BackendError extends Error {
  readonly backend: string
  readonly reason: BackendFailure
  constructor(backend: string, reason: BackendFailure, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BackendError'
    this.backend = backend
    this.reason = reason
  }
}
