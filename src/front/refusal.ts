// THE refusal of a request before the MCP handler took it (guards, body reader, method, an
// unexpected failure in between): the catalogue's status and JSON-RPC error (no id: the body was
// not understood), one access line and one count. Sent through Fastify, so headers already on the
// reply (CORS for an allowed browser) go out with it. A refusal that leaves the body unread closes
// the connection (src/front/linger.ts): the body is never read to its end.
import type { FastifyReply } from 'fastify'
import type { ErrorCode, GatewayError } from '../errors.ts'
import { LIMIT, OUTCOME, type LimitName } from '../observability/metrics.ts'
import { clientFields, errorBody, recordAccess } from './access.ts'
import { closeAfterResponse, mustCloseUnread } from './linger.ts'

declare module 'fastify' {
  interface FastifyInstance {
    // How access lines name the client (trustProxy: the address from X-Forwarded-For).
    accessLog: { trustProxy: boolean }
  }
}

// HTTP-10: the only method the endpoint serves today.
export const ALLOWED_METHODS = 'POST'

// Refusals that are front-door limits, counted by limit (README "Limits").
const LIMIT_OF: Partial<Record<ErrorCode, LimitName>> = {
  MCP_GATEWAY_HTTP_BODY_TOO_LARGE: LIMIT.bodyTooLarge,
  MCP_GATEWAY_HTTP_BODY_TIMEOUT: LIMIT.bodyTimeout,
}

export function refuse(reply: FastifyReply, error: GatewayError): void {
  const status = error.httpStatus
  const body = JSON.stringify(errorBody(undefined, error))
  reply.code(status).header('content-type', 'application/json; charset=utf-8')
  if (error.code === 'MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED') reply.header('allow', ALLOWED_METHODS)
  if (error.headers !== undefined) reply.headers(error.headers)
  if (reply.request.raw.httpVersionMajor === 2) {
    // Fastify asks to close the connection after a body it refused; h2 has no such header (RFC 9113
    // §8.2.2: a stream ends alone, and an unread body is the stream's, not the connection's).
    reply.removeHeader('connection')
  } else {
    const maxBodyBytes = reply.server.initialConfig.bodyLimit ?? 0
    // A client that stalled its body is not kept: its connection closes whatever it declared.
    if (error.code === 'MCP_GATEWAY_HTTP_BODY_TIMEOUT' || mustCloseUnread(reply.raw, maxBodyBytes)) closeAfterResponse(reply.raw, maxBodyBytes)
  }
  void reply.send(body)
  const outcome = status >= 500 ? OUTCOME.error : OUTCOME.rejected
  const { request } = reply
  const limit = LIMIT_OF[error.code]
  if (limit !== undefined) request.server.metrics.limits.countRefusal(limit, '')
  const client = clientFields(request.headers, request.socket.remoteAddress, request.server.accessLog.trustProxy)
  recordAccess(request.server.metrics, request.log, request.id, { code: error.code, rpcCode: error.rpcCode, outcome, status }, reply.elapsedTime / 1000, client)
}
