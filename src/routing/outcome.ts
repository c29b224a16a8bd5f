// What the router hands back to the transport: a result or an error with its HTTP status
// (used only when nothing has been streamed yet; otherwise it goes in band, HTTP-16).
import { GatewayError, ORIGIN_KEY, RPC } from '../errors.ts'
import type { JsonObject, JsonRpcErrorObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { BackendError } from '../upstream/backend.ts'

export type RouteReply =
  | { ok: true; result: JsonObject }
  | { ok: false; error: JsonRpcErrorObject; httpStatus: number; origin: 'gateway' | 'backend' }

export function fromGatewayError(err: GatewayError): RouteReply {
  return { ok: false, error: err.toJsonRpcError(), httpStatus: err.httpStatus, origin: 'gateway' }
}

const UPSTREAM_CODES = {
  unreachable: 'MCP_GATEWAY_UPSTREAM_UNAVAILABLE',
  timeout: 'MCP_GATEWAY_UPSTREAM_TIMEOUT',
  bad_reply: 'MCP_GATEWAY_UPSTREAM_BAD_REPLY',
  closed: 'MCP_GATEWAY_UPSTREAM_CLOSED',
  aborted: 'MCP_GATEWAY_UPSTREAM_CLOSED',
} as const

// ERR-7: a gateway-origin failure names the backend and says the gateway produced it.
export function fromBackendError(err: BackendError): RouteReply {
  const data = { [ORIGIN_KEY]: 'gateway', backend: err.backend, reason: err.reason }
  return fromGatewayError(new GatewayError(UPSTREAM_CODES[err.reason], `${err.backend}: ${err.message}`, { data, cause: err }))
}

// G11: backend errors pass through, except the codes a modern client must never see.
export function fromBackendRpcError(error: JsonRpcErrorObject, params: JsonObject): RouteReply {
  if (error.code === RPC.legacyResourceNotFound) {
    // ERR-5: legacy resource-not-found becomes -32602 with data.uri.
    const data = isJsonObject(error.data) ? { ...error.data, uri: params.uri } : { uri: params.uri }
    return { ok: false, error: { code: RPC.invalidParams, message: error.message, data }, httpStatus: 200, origin: 'backend' }
  }
  // E15: -32021 keeps its 400; ERR-8: -32601 keeps its 404.
  const httpStatus = error.code === RPC.missingClientCapability ? 400 : error.code === RPC.methodNotFound ? 404 : 200
  return { ok: false, error, httpStatus, origin: 'backend' }
}
