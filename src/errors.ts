// THE error catalogue: every error the gateway itself emits, with its JSON-RPC code, HTTP status
// (used only when the error is decided before a response starts) and message. Nothing else in
// the code writes a numeric JSON-RPC code or an error status. The README error table mirrors this
// (a test keeps the two in step). Rule ids: see GATEWAY-REQUIREMENTS §24.

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedVersion: -32022,
  // Received only, never emitted (ERR-5): 2025-11-25 "resource not found".
  legacyResourceNotFound: -32002,
} as const

interface CatalogEntry {
  rpcCode: number
  httpStatus: number
  message: string
}

export const ERRORS = {
  // E1, SEC-2
  MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN: { rpcCode: RPC.invalidRequest, httpStatus: 403, message: 'Origin not allowed' },
  // SEC-1 (DNS rebinding): Host header not in the allow-list
  MCP_GATEWAY_HTTP_HOST_FORBIDDEN: { rpcCode: RPC.invalidRequest, httpStatus: 403, message: 'Host not allowed' },
  // E5, HTTP-10
  MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED: { rpcCode: RPC.invalidRequest, httpStatus: 405, message: 'Method not allowed: use POST' },
  MCP_GATEWAY_HTTP_BODY_TOO_LARGE: { rpcCode: RPC.invalidRequest, httpStatus: 413, message: 'Request body too large' },
  // E32
  MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE: { rpcCode: RPC.invalidRequest, httpStatus: 415, message: 'Content-Type must be application/json' },
  // E31, HTTP-3
  MCP_GATEWAY_HTTP_NOT_ACCEPTABLE: { rpcCode: RPC.invalidRequest, httpStatus: 406, message: 'Accept must include text/event-stream' },
  MCP_GATEWAY_HTTP_NOT_FOUND: { rpcCode: RPC.invalidRequest, httpStatus: 404, message: 'Not found' },
  // E6
  MCP_GATEWAY_RPC_PARSE_ERROR: { rpcCode: RPC.parseError, httpStatus: 400, message: 'Parse error: body is not valid JSON' },
  // E7, HTTP-4
  MCP_GATEWAY_RPC_INVALID_REQUEST: { rpcCode: RPC.invalidRequest, httpStatus: 400, message: 'Invalid request' },
  // E14, META-1
  MCP_GATEWAY_META_MISSING: { rpcCode: RPC.invalidParams, httpStatus: 400, message: 'Missing required _meta' },
  // E10-E12, HDR-5
  MCP_GATEWAY_HEADER_MISMATCH: { rpcCode: RPC.headerMismatch, httpStatus: 400, message: 'Header mismatch' },
  // E13, VER-2
  MCP_GATEWAY_VERSION_UNSUPPORTED: { rpcCode: RPC.unsupportedVersion, httpStatus: 400, message: 'Unsupported protocol version' },
  // E16, ERR-8
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
  // MRTR-8/9 (E22)
  MCP_GATEWAY_STATE_INVALID: { rpcCode: RPC.invalidParams, httpStatus: 200, message: 'Invalid requestState' },
  // ERR-7, E24: gateway-origin failures toward a backend
  MCP_GATEWAY_UPSTREAM_UNAVAILABLE: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend unavailable' },
  MCP_GATEWAY_UPSTREAM_TIMEOUT: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend timed out' },
  MCP_GATEWAY_UPSTREAM_BAD_REPLY: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend sent an invalid reply' },
  MCP_GATEWAY_UPSTREAM_CLOSED: { rpcCode: RPC.internalError, httpStatus: 200, message: 'Backend connection closed' },
  MCP_GATEWAY_INTERNAL: { rpcCode: RPC.internalError, httpStatus: 500, message: 'Internal error' },
} as const satisfies Record<string, CatalogEntry>

export type ErrorCode = keyof typeof ERRORS

export class GatewayError extends Error {
  readonly code: ErrorCode
  readonly rpcCode: number
  readonly httpStatus: number
  readonly data: unknown
  constructor(code: ErrorCode, detail?: string, options?: { data?: unknown; cause?: unknown }) {
    const entry = ERRORS[code]
    super(detail ? `${entry.message}: ${detail}` : entry.message, { cause: options?.cause })
    this.name = 'GatewayError'
    this.code = code
    this.rpcCode = entry.rpcCode
    this.httpStatus = entry.httpStatus
    this.data = options?.data
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
