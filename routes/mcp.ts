// The MCP endpoint: one handler per method, every one behind the front guards (plugins/security.ts
// attaches them to each route declared here). POST carries every message; GET and DELETE are for
// legacy sessions, which do not exist yet (405). A legacy-session handler replaces its method's
// entry in `handlers` below; the guards, body reader and refusals stay as they are.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { GatewayError } from '../src/errors.ts'
import { handleMcpPost, type McpHandlerDeps } from '../src/front/mcp-handler.ts'
import type { Logger } from '../src/observability/logger.ts'

export interface McpRouteOptions {
  endpoint: string
  deps: McpHandlerDeps
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown

// HTTP-10: no legacy session can exist yet; refused with Allow: POST (src/front/refusal.ts).
function methodNotAllowed(): never {
  throw new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED')
}

// Headers set by plugins (CORS, for an allowed browser Origin) go onto the raw response before
// the handler takes it over; a request without Origin has none to copy.
function copyReplyHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
}

// The handler answers every request itself (a bug becomes -32603); this only catches what would
// escape it. Created once: the promise is not handed to Fastify, which would add a then() per call.
function createPost(deps: McpHandlerDeps, log: Logger): Handler {
  const onEscaped = (err: unknown): void => log.error({ err }, 'unhandled error after the MCP handler')
  return (request, reply) => {
    const headers = request.headers
    if (headers.origin !== undefined) copyReplyHeaders(reply)
    reply.hijack()
    handleMcpPost(deps, { headers, body: request.body, res: reply.raw, log: request.log, reqId: request.id }).catch(onEscaped)
  }
}

const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, { endpoint, deps }) => {
  const handlers: Record<'POST' | 'GET' | 'DELETE' | 'PUT' | 'PATCH', Handler> = {
    POST: createPost(deps, app.log),
    GET: methodNotAllowed,
    DELETE: methodNotAllowed,
    PUT: methodNotAllowed,
    PATCH: methodNotAllowed,
  }
  for (const [method, handler] of Object.entries(handlers)) app.route({ method, url: endpoint, handler })
}

export default mcpRoutes
