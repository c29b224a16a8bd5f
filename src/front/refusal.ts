// THE refusal of a request before the MCP handler took it (guards, body reader, method, an
// unexpected failure in between): the catalogue's status and JSON-RPC error (no id: the body was
// not understood), one access line and one count. Sent through Fastify, so headers already on the
// reply (CORS for an allowed browser) go out with it.
import type { FastifyReply } from 'fastify'
import type { GatewayError } from '../errors.ts'
import { OUTCOME } from '../observability/metrics.ts'
import { clientFields, errorBody, recordAccess } from './access.ts'

declare module 'fastify' {
  interface FastifyInstance {
    // How access lines name the client (trustProxy: the address from X-Forwarded-For).
    accessLog: { trustProxy: boolean }
  }
}

// HTTP-10: the only method the endpoint serves today.
export const ALLOWED_METHODS = 'POST'

export function refuse(reply: FastifyReply, error: GatewayError): void {
  const status = error.httpStatus
  const body = JSON.stringify(errorBody(undefined, error))
  reply.code(status).header('content-type', 'application/json; charset=utf-8')
  if (error.code === 'MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED') reply.header('allow', ALLOWED_METHODS)
  // Fastify asks to close the connection after a body it refused; h2 has no such header (RFC 9113
  // §8.2.2: a stream ends alone), and Node would drop it with a warning.
  if (reply.request.raw.httpVersionMajor === 2) reply.removeHeader('connection')
  void reply.send(body)
  const outcome = status >= 500 ? OUTCOME.error : OUTCOME.rejected
  const { request } = reply
  const client = clientFields(request.headers, request.socket.remoteAddress, request.server.accessLog.trustProxy)
  recordAccess(request.server.metrics, request.log, request.id, { code: error.code, rpcCode: error.rpcCode, outcome, status, ...client }, reply.elapsedTime / 1000)
}
