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

export function recordAccess(metrics: GatewayMetrics, log: Logger, reqId: string, access: Access, seconds: number): void {
  metrics.observeRequest(methodLabel(access.rpcMethod), access.outcome, seconds)
  if (access.backend !== undefined) metrics.observeUpstream(access.backend, access.outcome)
  log.info({ reqId, ...access, durationMs: Math.round(seconds * 1e6) / 1e3 }, 'mcp request')
}

// A JSON-RPC error response: with the request's id when it was readable, else without one.
export function errorBody(id: JsonRpcId | undefined, error: GatewayError): object {
  return id === undefined ? { jsonrpc: '2.0', error: error.toJsonRpcError() } : { jsonrpc: '2.0', id, error: error.toJsonRpcError() }
}
