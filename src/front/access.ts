// One access line and one count per MCP request, whoever answered it: the MCP handler (answers,
// in-band errors, refusals after the body was understood) or refuse() (refusals decided before).
import type { GatewayError, ErrorCode } from '../errors.ts'
import type { JsonRpcId } from '../protocol/jsonrpc.ts'
import type { Logger } from '../observability/logger.ts'
import { methodLabel, type GatewayMetrics, type Outcome } from '../observability/metrics.ts'

export interface Access {
  rpcMethod?: string
  rpcId?: JsonRpcId
  backend?: string
  tool?: string
  // The catalogue code of a refusal or gateway error.
  code?: ErrorCode
  outcome: Outcome
  status: number
}

// Log amplification (README "Limits"): a client's strings (ids, methods, names, URIs) are cut to
// LOG_FIELD_CHARS in log lines, with the length they had; a 1 MiB id is not a 1 MiB line.
export const LOG_FIELD_CHARS = 256

export function clipForLog<T>(value: T): T | string {
  if (typeof value !== 'string' || value.length <= LOG_FIELD_CHARS) return value
  return `${value.slice(0, LOG_FIELD_CHARS)}…[${value.length} chars]`
}

export function recordAccess(metrics: GatewayMetrics, log: Logger, reqId: string, access: Access, seconds: number): void {
  metrics.observeRequest(methodLabel(access.rpcMethod), access.outcome, seconds)
  if (access.backend !== undefined) metrics.observeUpstream(access.backend, access.outcome)
  const { rpcMethod, rpcId, tool } = access
  // The common line has short fields: only an oversized one is copied into a clipped line.
  const long = (rpcMethod?.length ?? 0) > LOG_FIELD_CHARS || (typeof rpcId === 'string' && rpcId.length > LOG_FIELD_CHARS) || (tool?.length ?? 0) > LOG_FIELD_CHARS
  const fields = long ? { ...access, rpcMethod: clipForLog(rpcMethod), rpcId: clipForLog(rpcId), tool: clipForLog(tool) } : access
  log.info({ reqId, ...fields, durationMs: Math.round(seconds * 1e6) / 1e3 }, 'mcp request')
}

// A JSON-RPC error response: with the request's id when it was readable, else without one.
export function errorBody(id: JsonRpcId | undefined, error: GatewayError): object {
  return id === undefined ? { jsonrpc: '2.0', error: error.toJsonRpcError() } : { jsonrpc: '2.0', id, error: error.toJsonRpcError() }
}
