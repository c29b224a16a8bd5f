// THE error catalogue: every error the gateway itself emits, with its JSON-RPC code, HTTP status
// (used only when the error is decided before a response starts) and message. Nothing else in
// the code writes a numeric JSON-RPC code or an error status. The README error table mirrors this
// (a test keeps the two in step). Rule ids: see docs/rules.md.

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
  // 2025-11-25 "resource not found": received from legacy backends; sent to legacy clients only
  // (LEGACY-16), never to modern ones (ERR-5), and never a catalogue entry.
  legacyResourceNotFound: -32002,
  // 2025-11-25 "URL elicitation required": received from legacy backends; a modern client gets
  // -32603 instead (ERR-5, by the range rule below), a legacy one the backend's error as it was.
  legacyUrlElicitationRequired: -32042,
} as const

// ERR-3: -32020…-32099 holds only the codes 2026-07-28 defines (-32020, -32021, -32022). A
// backend's other code there reaches a modern client as -32603, its message and data kept.
const DEFINED_MCP_CODES: ReadonlySet<number> = new Set([RPC.headerMismatch, RPC.missingClientCapability, RPC.unsupportedVersion])
export function isUndefinedMcpCode(code: number): boolean {
  return code >= -32099 && code <= -32020 && !DEFINED_MCP_CODES.has(code)
}

interface CatalogEntry {
  rpcCode: number
  httpStatus: number
  message: string
}

export const ERRORS = {
  // SEC-2
  MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN: { rpcCode: RPC.invalidRequest, httpStatus: 403, message: 'Origin not allowed' },
  // SEC-1 (DNS rebinding): Host header not in the allow-list
  MCP_GATEWAY_HTTP_HOST_FORBIDDEN: { rpcCode: RPC.invalidRequest, httpStatus: 403, message: 'Host not allowed' },
  // RFC 9112 §3.2: a missing, malformed or repeated Host (or absolute-form authority)
  MCP_GATEWAY_HTTP_HOST_INVALID: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Invalid Host header' },
  // HTTP-10
  MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED: { rpcCode: RPC.invalidRequest, httpStatus: 405, message: 'Method not allowed: use POST' },
  MCP_GATEWAY_HTTP_BODY_TOO_LARGE: { rpcCode: RPC.invalidRequest, httpStatus: 413, message: 'Request body too large' },
  // README "Limits": what the HTTP parser refuses (bad framing, an unknown method token, a bad URL),
  // headers over the parser's limit, a body that does not arrive in time
  MCP_GATEWAY_HTTP_BAD_REQUEST: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Malformed HTTP request' },
  MCP_GATEWAY_HTTP_HEADERS_TOO_LARGE: { rpcCode: RPC.invalidRequest, httpStatus: 431, message: 'Request headers too large' },
  MCP_GATEWAY_HTTP_BODY_TIMEOUT: { rpcCode: RPC.invalidRequest, httpStatus: 408, message: 'Request body not received in time' },
  // HTTP-17
  MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE: { rpcCode: RPC.invalidRequest, httpStatus: 415, message: 'Content-Type must be application/json' },
  // HTTP-3
  MCP_GATEWAY_HTTP_NOT_ACCEPTABLE: { rpcCode: RPC.invalidRequest, httpStatus: 406, message: 'Accept must include text/event-stream' },
  MCP_GATEWAY_HTTP_NOT_FOUND: { rpcCode: RPC.invalidRequest, httpStatus: 404, message: 'Not found' },
  // ERR-1
  MCP_GATEWAY_RPC_PARSE_ERROR: { rpcCode: RPC.parseError, httpStatus: 400, message: 'Parse error: body is not valid JSON' },
  // HTTP-4
  MCP_GATEWAY_RPC_INVALID_REQUEST: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Invalid request' },
  // META-1
  MCP_GATEWAY_META_MISSING: { rpcCode: RPC.invalidParams, httpStatus: 400, message: 'Missing required _meta' },
  // HDR-5 (VER-1 for the version header, HDR-7/HDR-8 for Mcp-Param-*)
  MCP_GATEWAY_HEADER_MISMATCH: { rpcCode: RPC.headerMismatch, httpStatus: 400, message: 'Header mismatch' },
  // VER-2
  MCP_GATEWAY_VERSION_UNSUPPORTED: { rpcCode: RPC.unsupportedVersion, httpStatus: 400, message: 'Unsupported protocol version' },
  // ERR-8
  MCP_GATEWAY_METHOD_NOT_FOUND: { rpcCode: RPC.methodNotFound, httpStatus: 404, message: 'Method not found' },
  // ERR-14
  MCP_GATEWAY_LOG_LEVEL_INVALID: { rpcCode: RPC.invalidParams, httpStatus: 400, message: 'Invalid log level' },
  // ERR-9 (HTTP-16: 200, in band)
  MCP_GATEWAY_TOOL_UNKNOWN: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Unknown tool' },
  MCP_GATEWAY_PROMPT_UNKNOWN: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Unknown prompt' },
  // ERR-10
  MCP_GATEWAY_RESOURCE_UNKNOWN: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Resource not found' },
  MCP_GATEWAY_PARAMS_INVALID: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Invalid params' },
  // ERR-13, PAGE-4
  MCP_GATEWAY_CURSOR_INVALID: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Invalid cursor' },
  // MRTR-8/9
  MCP_GATEWAY_STATE_INVALID: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Invalid requestState' },
  // ERR-7: gateway-origin failures toward a backend
  MCP_GATEWAY_UPSTREAM_UNAVAILABLE: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend unavailable' },
  MCP_GATEWAY_UPSTREAM_TIMEOUT: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend timed out' },
  MCP_GATEWAY_UPSTREAM_BAD_REPLY: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend sent an invalid reply' },
  MCP_GATEWAY_UPSTREAM_CLOSED: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend connection closed' },
  // README "Limits": a gateway limit refused the call or stopped its reply (in band, naming the backend)
  MCP_GATEWAY_LIMIT_QUEUE_FULL: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Too many calls waiting for this backend' },
  MCP_GATEWAY_LIMIT_QUEUE_TIMEOUT: { rpcCode: RPC.internalError, httpStatus: 200, message: 'No free slot for this backend in time' },
  MCP_GATEWAY_LIMIT_REPLY_BUDGET: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Gateway reply memory budget exhausted' },
  // README "Limits", the front door's: connections and long-lived streams (with Retry-After)
  MCP_GATEWAY_LIMIT_CONNECTIONS: { rpcCode: RPC.internalError, httpStatus: 503, message: 'Too many connections to the gateway' },
  MCP_GATEWAY_LIMIT_STREAMS_PER_CLIENT: { rpcCode: RPC.invalidRequest, httpStatus: 429, message: 'Too many open streams for this client' },
  MCP_GATEWAY_LIMIT_STREAMS: { rpcCode: RPC.internalError, httpStatus: 503, message: 'Too many open streams on the gateway' },
  // AUTH-8: a backend's 401/403 (its challenge never reaches the client), or no credential for it
  MCP_GATEWAY_UPSTREAM_UNAUTHORIZED: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend refused the gateway\'s credentials' },
  MCP_GATEWAY_INTERNAL: { rpcCode: RPC.internalError, httpStatus: 500, message: 'Internal error' },
  // README "Operations": a request still in flight at the shutdown deadline (in band, never a silent cut)
  MCP_GATEWAY_SERVER_SHUTTING_DOWN: { rpcCode: RPC.internalError, httpStatus: 200, message: 'The gateway is shutting down' },
  // AUTH-6, AUTH-12: no bearer token, or one that does not validate (with WWW-Authenticate)
  MCP_GATEWAY_AUTH_REQUIRED: { rpcCode: RPC.invalidRequest, httpStatus: 401, message: 'Authorization required' },
  MCP_GATEWAY_AUTH_INVALID_TOKEN: { rpcCode: RPC.invalidRequest, httpStatus: 401, message: 'Invalid access token' },
  // AUTH-12: tokens never in the query string (RFC 6750 invalid_request)
  MCP_GATEWAY_AUTH_TOKEN_IN_QUERY: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Access tokens must be sent in the Authorization header' },
  // AUTH-9
  MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE: { rpcCode: RPC.invalidRequest, httpStatus: 403, message: 'Insufficient scope' },
  // The authorization server's keys or introspection endpoint cannot be reached: not the token's fault
  MCP_GATEWAY_AUTH_UNAVAILABLE: { rpcCode: RPC.internalError, httpStatus: 503, message: 'Cannot verify access tokens right now' },
  MCP_GATEWAY_RATE_LIMITED: { rpcCode: RPC.invalidRequest, httpStatus: 429, message: 'Too many requests' },
  // 2025-11-25 sessions: decided before dispatch, so they keep their status (LEGACY-4..10).
  MCP_GATEWAY_SESSION_REQUIRED: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Mcp-Session-Id header required: send initialize first' },
  MCP_GATEWAY_SESSION_UNKNOWN: { rpcCode: RPC.invalidRequest, httpStatus: 404, message: 'Session not found: initialize a new session' },
  MCP_GATEWAY_SESSION_VERSION_MISMATCH: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'MCP-Protocol-Version does not match the session' },
  MCP_GATEWAY_SESSION_ALREADY_INITIALIZED: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Session already initialized' },
  MCP_GATEWAY_SESSION_STREAM_OPEN: { rpcCode: RPC.invalidRequest, httpStatus: 409, message: 'The session already has a GET stream' },
  MCP_GATEWAY_SESSION_RESUME_UNSUPPORTED: { rpcCode: RPC.invalidRequest, httpStatus: 405, message: 'Stream resumption is not offered' },
  MCP_GATEWAY_SESSION_RESPONSE_UNEXPECTED: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'No server request waits for this response' },
  // Server-initiated requests to a legacy client (LEGACY-16): in band, after the stream started.
  MCP_GATEWAY_CLIENT_ANSWER_TIMEOUT: { rpcCode: RPC.internalError, httpStatus: 200, message: 'The client did not answer a server request in time' },
  MCP_GATEWAY_CLIENT_ANSWER_REFUSED: { rpcCode: RPC.internalError, httpStatus: 200, message: 'The client refused a server request' },
  // README "Reload without restart": POST /admin/reload without the admin bearer token, or with another
  MCP_GATEWAY_ADMIN_UNAUTHORIZED: { rpcCode: RPC.invalidRequest, httpStatus: 401, message: 'Admin token required' },
  // A reload whose new configuration is invalid: every error listed, the running one kept
  MCP_GATEWAY_CONFIG_RELOAD_REFUSED: { rpcCode: RPC.invalidParams, httpStatus: 422, message: 'Configuration refused; the running one is kept' },
  // Several replicas (README "Running N replicas"): what needs the shared state (Redis) or another replica.
  MCP_GATEWAY_REPLICA_STATE_UNAVAILABLE: { rpcCode: RPC.internalError, httpStatus: 503, message: 'Shared state (Redis) is unreachable: this request needs it' },
  MCP_GATEWAY_REPLICA_HOLDER_GONE: { rpcCode: RPC.invalidRequest, httpStatus: 410, message: 'The replica holding the waiting call is gone' },
  MCP_GATEWAY_REPLICA_HANDOFF_TIMEOUT: { rpcCode: RPC.internalError, httpStatus: 504, message: 'The replica holding the waiting call did not confirm in time' },
} as const satisfies Record<string, CatalogEntry>

export type ErrorCode = keyof typeof ERRORS

// ERR-7: the catalogue code each BackendError reason is reported as (gateway-origin -32603).
export const UPSTREAM_FAILURE_CODES = {
  unreachable: 'MCP_GATEWAY_UPSTREAM_UNAVAILABLE',
  timeout: 'MCP_GATEWAY_UPSTREAM_TIMEOUT',
  bad_reply: 'MCP_GATEWAY_UPSTREAM_BAD_REPLY',
  closed: 'MCP_GATEWAY_UPSTREAM_CLOSED',
  aborted: 'MCP_GATEWAY_UPSTREAM_CLOSED',
  queue_full: 'MCP_GATEWAY_LIMIT_QUEUE_FULL',
  queue_timeout: 'MCP_GATEWAY_LIMIT_QUEUE_TIMEOUT',
  reply_budget: 'MCP_GATEWAY_LIMIT_REPLY_BUDGET',
  unauthorized: 'MCP_GATEWAY_UPSTREAM_UNAUTHORIZED',
} as const satisfies Record<import('./upstream/backend.ts').BackendFailure, ErrorCode>

// HTTP-16: the status of an error answered in band (after dispatch, or on an open stream).
export const IN_BAND_HTTP_STATUS = 200

// ERR-5: a JSON-RPC error a backend returns passes through in band, except these codes, which keep
// the status the spec fixes when no response has started: ERR-2 (-32020 that HDR-12 could not
// mend, -32021 of META-4), ERR-8 (-32601).
export const BACKEND_ERROR_STATUS: ReadonlyMap<number, number> = new Map([
  [RPC.headerMismatch, 400],
  [RPC.missingClientCapability, 400],
  [RPC.methodNotFound, 404],
])

// ERR-5: backend error codes a modern client must never see → the code it gets instead, with
// the named request param copied into `data` (legacy -32002 → -32602 with data.uri).
export const BACKEND_ERROR_REWRITES: ReadonlyMap<number, { rpcCode: number; dataParam: string }> = new Map([
  [RPC.legacyResourceNotFound, { rpcCode: RPC.invalidParams, dataParam: 'uri' }],
])

export class GatewayError extends Error {
  readonly code: ErrorCode
  readonly rpcCode: number
  readonly httpStatus: number
  readonly data: unknown
  // Response headers the refusal needs (WWW-Authenticate on 401/403, Retry-After on 429).
  readonly headers: Readonly<Record<string, string>> | undefined
  constructor(code: ErrorCode, detail?: string, options?: { data?: unknown; cause?: unknown; headers?: Readonly<Record<string, string>> }) {
    const entry = ERRORS[code]
    super(detail ? `${entry.message}: ${detail}` : entry.message, { cause: options?.cause })
    this.name = 'GatewayError'
    this.code = code
    this.rpcCode = entry.rpcCode
    this.httpStatus = entry.httpStatus
    this.data = options?.data
    this.headers = options?.headers
  }

  toJsonRpcError(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data }
  }
}

// Backend-origin failure data (ERR-7): says the gateway produced the error, and why.
export const ORIGIN_KEY = 'io.github.mcp-gateway/origin'

// HTTP-16: once the response is committed (an SSE stream has started, its 200 is on the wire) an
// error can only go in band, with that 200; before that, the error's own (catalogue) status.
export function statusFor(error: { readonly httpStatus: number }, response: { readonly committed: boolean }): number {
  return response.committed ? 200 : error.httpStatus
}
