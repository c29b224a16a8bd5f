// One access line and one count per MCP request, whoever answered it: the MCP handler (answers,
// in-band errors, refusals after the body was understood) or refuse() (refusals decided before).
import type { IncomingHttpHeaders } from 'node:http'
import type { GatewayError, ErrorCode } from '../errors.ts'
import { clientAddress } from '../auth/rate-limit.ts'
import type { JsonRpcId } from '../protocol/jsonrpc.ts'
import type { Logger } from '../observability/logger.ts'
import { writeAccessLine } from '../observability/access-line.ts'
import { methodLabel, type GatewayMetrics, type Outcome } from '../observability/metrics.ts'

export interface Access {
  rpcMethod?: string
  rpcId?: JsonRpcId
  backend?: string
  tool?: string
  // prompts/get: the prompt asked for; resources/read: the URI (README "Operations").
  prompt?: string
  uri?: string
  // The catalogue code of a refusal or gateway error.
  code?: ErrorCode
  // The JSON-RPC error code the client got (a backend's own, or the gateway's).
  rpcCode?: number
  // Who asked: the client address (X-Forwarded-For honoured only with trustProxy) and its agent.
  remoteAddress?: string
  userAgent?: string
  outcome: Outcome
  status: number
}

export type ClientFields = Pick<Access, 'remoteAddress' | 'userAgent'>

// The access line's client fields, from the request line and headers.
export function clientFields(headers: IncomingHttpHeaders, remoteAddress: string | undefined, trustProxy: boolean): ClientFields {
  const fields: ClientFields = { remoteAddress: clientAddress(remoteAddress, headers['x-forwarded-for'], trustProxy) }
  if (headers['user-agent'] !== undefined) fields.userAgent = headers['user-agent']
  return fields
}

// What a routed request named, under the field its method gives it: tool, prompt or URI.
export function targetFields(method: string, name: string | undefined): Pick<Access, 'tool' | 'prompt' | 'uri'> {
  if (name === undefined) return {}
  if (method === 'prompts/get') return { prompt: name }
  if (method === 'resources/read') return { uri: name }
  return { tool: name }
}

// Log amplification (README "Limits"): a client's strings (ids, methods, names, URIs) are cut to
// LOG_FIELD_CHARS in log lines, with the length they had; a 1 MiB id is not a 1 MiB line.
export const LOG_FIELD_CHARS = 256

export function clipForLog<T>(value: T): T | string {
  if (typeof value !== 'string' || value.length <= LOG_FIELD_CHARS) return value
  return `${value.slice(0, LOG_FIELD_CHARS)}…[${value.length} chars]`
}

function isLong(value: unknown): boolean {
  return typeof value === 'string' && value.length > LOG_FIELD_CHARS
}

// `client`: the client fields (clientFields), when `access` does not hold them already.
export function recordAccess(metrics: GatewayMetrics, log: Logger, reqId: string, access: Access, seconds: number, client?: ClientFields): void {
  metrics.observeRequest(methodLabel(access.rpcMethod), access.outcome, seconds)
  if (access.backend !== undefined) metrics.observeUpstream(access.backend, access.outcome)
  const { rpcMethod, rpcId, tool, prompt, uri } = access
  const userAgent = client?.userAgent ?? access.userAgent
  // The common line has short fields: only an oversized one is copied into a clipped line.
  const long = isLong(rpcMethod) || isLong(rpcId) || isLong(tool) || isLong(prompt) || isLong(uri) || isLong(userAgent)
  const fields = long ? { ...access, ...client, rpcMethod: clipForLog(rpcMethod), rpcId: clipForLog(rpcId), tool: clipForLog(tool), prompt: clipForLog(prompt), uri: clipForLog(uri), userAgent: clipForLog(userAgent) } : access
  const duration = { durationMs: Math.round(seconds * 1e6) / 1e3 }
  // A clipped line already holds the client fields.
  writeAccessLine(log, { reqId }, fields, long ? undefined : client, duration)
}

// A JSON-RPC error response: with the request's id when it was readable, else without one.
export function errorBody(id: JsonRpcId | undefined, error: GatewayError): object {
  return id === undefined ? { jsonrpc: '2.0', error: error.toJsonRpcError() } : { jsonrpc: '2.0', id, error: error.toJsonRpcError() }
}
