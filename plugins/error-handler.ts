// One error handler: every error that reaches Fastify (a guard's refusal, the body reader's, a
// method the endpoint does not serve, anything unexpected) is refused from the catalogue.
import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { GatewayError, type ErrorCode } from '../src/errors.ts'
import { errorBody } from '../src/front/access.ts'
import { refuse } from '../src/front/refusal.ts'

// Fastify's own failures, by err.code (never by message).
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'MCP_GATEWAY_HTTP_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MCP_GATEWAY_RPC_PARSE_ERROR',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MCP_GATEWAY_RPC_PARSE_ERROR',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MCP_GATEWAY_RPC_INVALID_REQUEST',
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: 'MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE',
}

function toGatewayError(err: FastifyError | GatewayError): GatewayError {
  if (err instanceof GatewayError) return err
  const code = FASTIFY_CODES[err.code]
  if (code) return new GatewayError(code, undefined, { cause: err })
  if (err instanceof SyntaxError) return new GatewayError('MCP_GATEWAY_RPC_PARSE_ERROR', undefined, { cause: err })
  return new GatewayError('MCP_GATEWAY_INTERNAL', undefined, { cause: err })
}

export interface ErrorHandlerOptions {
  // The MCP endpoint: a method no route serves there is 405 (HTTP-10), not 404.
  endpoint: string
}

// The path of a request target, without its query.
function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

export default fp<ErrorHandlerOptions>(async function errorHandlerPlugin(app, { endpoint }) {
  app.setErrorHandler((err: FastifyError | GatewayError, request, reply) => {
    const gatewayError = toGatewayError(err)
    // A bug, not a refusal: logged once with its stack (the access line follows, as for any request).
    if (gatewayError.httpStatus >= 500) request.log.error({ reqId: request.id, err }, 'unhandled error')
    refuse(reply, gatewayError)
  })
  // Not an MCP request: no access line, no count. The endpoint with a method no route serves
  // (OPTIONS that is no preflight, a method Fastify knows but the gateway does not) is 405.
  app.setNotFoundHandler((request, reply) => {
    if (pathOf(request.url) === endpoint) return refuse(reply, new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED'))
    const notFound = new GatewayError('MCP_GATEWAY_HTTP_NOT_FOUND')
    void reply.code(notFound.httpStatus).send(errorBody(undefined, notFound))
  })
}, { name: 'error-handler' })
