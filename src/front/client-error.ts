// What the HTTP parser refuses before any route runs (node's 'clientError': bad framing, an unknown
// method token, headers over the limit, a request not received within requestTimeout) still gets
// the catalogue's status and a JSON-RPC error body (a dual-era client reads a bare 400 as "legacy
// server"), is counted, and the connection is closed. Written on the socket: there is no request.
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { GatewayError, type ErrorCode } from '../errors.ts'
import { LIMIT, type GatewayMetrics, type LimitName } from '../observability/metrics.ts'
import { errorBody } from './access.ts'

const REFUSALS: Record<string, { code: ErrorCode; limit: LimitName }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'MCP_GATEWAY_HTTP_BODY_TIMEOUT', limit: LIMIT.bodyTimeout },
  HPE_HEADER_OVERFLOW: { code: 'MCP_GATEWAY_HTTP_HEADERS_TOO_LARGE', limit: LIMIT.headersTooLarge },
}
const MALFORMED = { code: 'MCP_GATEWAY_HTTP_BAD_REQUEST', limit: LIMIT.badRequest } as const

// The whole response, as bytes on the wire (closing the connection).
export function rawRefusal(error: GatewayError, headers: Readonly<Record<string, string>> = {}): string {
  const body = JSON.stringify(errorBody(undefined, error))
  const status = error.httpStatus
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`
}

interface ParserSocket extends Socket {
  _httpMessage?: { headersSent: boolean } | null
}

export function createClientErrorHandler(metrics: () => GatewayMetrics): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    // A reset, or a socket already gone: nothing to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    const refusal = REFUSALS[err.code ?? ''] ?? MALFORMED
    metrics().limits.countRefusal(refusal.limit, '')
    // A response already under way (a late timeout) cannot be replaced: the connection just ends.
    const started = (socket as ParserSocket)._httpMessage?.headersSent === true
    if (socket.writable && !started) socket.end(rawRefusal(new GatewayError(refusal.code)))
    socket.destroySoon()
  }
}
