// One error handler: every error becomes a JSON-RPC-shaped reply from the catalogue, logged once.
import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { GatewayError, type ErrorCode } from '../src/errors.ts'
import { OUTCOME } from '../src/observability/metrics.ts'

// Fastify's own failures, by err.code (never by message).
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'MCP_GATEWAY_HTTP_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MCP_GATEWAY_RPC_PARSE_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MCP_GATEWAY_RPC_PARSE_ERROR',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MCP_GATEWAY_RPC_INVALID_REQUEST',
}

function toGatewayError(err: FastifyError | GatewayError): GatewayError {
  if (err instanceof GatewayError) return err
  const code = FASTIFY_CODES[err.code]
  if (code) return new GatewayError(code, undefined, { cause: err })
  if (err instanceof SyntaxError) return new GatewayError('MCP_GATEWAY_RPC_PARSE_ERROR', undefined, { cause: err })
  return new GatewayError('MCP_GATEWAY_INTERNAL', undefined, { cause: err })
}

export default fp(async function errorHandlerPlugin(app) {
  app.setErrorHandler((err: FastifyError | GatewayError, request, reply) => {
    const gatewayError = toGatewayError(err)
    const status = gatewayError.httpStatus
    if (status >= 500) request.log.error({ reqId: request.id, err }, 'unhandled error')
    // A refusal decided before the MCP handler ran (guard, body parser, method) is still an MCP
    // request: one access line and one count, like every other.
    else request.log.info({ reqId: request.id, outcome: OUTCOME.rejected, code: gatewayError.code, status }, 'mcp request')
    request.server.metrics.observeRequest('invalid', OUTCOME.rejected, reply.elapsedTime / 1000)
    const headers: Record<string, string> = status === 405 ? { allow: 'POST' } : {}
    void reply.code(status).headers(headers).send({ jsonrpc: '2.0', error: gatewayError.toJsonRpcError() })
  })
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send({ jsonrpc: '2.0', error: new GatewayError('MCP_GATEWAY_HTTP_NOT_FOUND').toJsonRpcError() })
  })
}, { name: 'error-handler' })
