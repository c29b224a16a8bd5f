// The MCP endpoint: one handler per method, every one behind the front guards (plugins/security.ts
// attaches them to each route declared here). POST carries every message; GET and DELETE serve
// legacy sessions (LEGACY-5, LEGACY-9) and are 405 for anything else (HTTP-10).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { GatewayError } from '../src/errors.ts'
import { handleMcpPost, type McpHandlerDeps } from '../src/front/mcp-handler.ts'
import type { LegacyFront } from '../src/front/legacy/create-legacy-front.ts'
import { clientAddress } from '../src/auth/rate-limit.ts'

export interface McpRouteOptions {
  endpoint: string
  deps: McpHandlerDeps
  // Legacy sessions' GET stream and DELETE (LEGACY-5, LEGACY-9); absent: modern only.
  legacy?: Pick<LegacyFront, 'get' | 'delete'>
  // The client's address from X-Forwarded-For (behind a load balancer), as the rate limit takes it.
  trustProxy: boolean
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown

// HTTP-10: refused with Allow (src/front/refusal.ts).
function methodNotAllowed(): never {
  throw new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED')
}

// Headers set by plugins (CORS, for an allowed browser Origin) go onto the raw response before
// the handler takes it over; a request without Origin has none to copy.
function takeOver(request: FastifyRequest, reply: FastifyReply): void {
  if (request.headers.origin !== undefined) {
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
  }
  reply.hijack()
}

// The same refusal as an onRequest hook: decided before Fastify looks at a body's media type.
const refuseMethod: onRequestHookHandler = (_request, _reply, done) => done(new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED'))

// The client's address, one rule for every per-client limit (rate limit, fair scheduling, streams).
function addressOf(request: FastifyRequest, trustProxy: boolean): string {
  return trustProxy ? clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], true) : (request.socket.remoteAddress ?? 'unknown')
}

// The handler answers every request itself (a bug becomes -32603) and never rejects (it logs what
// would escape): its promise is not handed to Fastify, which would add a then() per call.
function createPost(deps: McpHandlerDeps, trustProxy: boolean): Handler {
  return (request, reply) => {
    takeOver(request, reply)
    void handleMcpPost(deps, {
      headers: request.headers, body: request.body, res: reply.raw, log: request.log, reqId: request.id, url: request.url, remoteAddress: addressOf(request, trustProxy),
      principal: request.principal,
    })
  }
}

function createSessionHandler(legacy: McpRouteOptions['legacy'], trustProxy: boolean): Handler {
  return async (request, reply) => {
    if (legacy === undefined || request.headers['mcp-session-id'] === undefined) methodNotAllowed()
    takeOver(request, reply)
    const session = {
      headers: request.headers, res: reply.raw, log: request.log, reqId: request.id, url: request.url, remoteAddress: addressOf(request, trustProxy), principal: request.principal,
    }
    await (request.method === 'GET' ? legacy.get(session) : legacy.delete(session))
  }
}

const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, { endpoint, deps, legacy, trustProxy }) => {
  const session = createSessionHandler(legacy, trustProxy)
  const handlers: Record<'POST' | 'GET' | 'DELETE', Handler> = {
    POST: createPost(deps, trustProxy),
    GET: session,
    DELETE: session,
  }
  for (const [method, handler] of Object.entries(handlers)) app.route({ method, url: endpoint, handler })
  // Every other method Fastify knows (PUT, PATCH, QUERY, PROPFIND …) is 405 after the guards, before
  // its body is read. HEAD follows GET; OPTIONS is the CORS preflight's.
  const others = app.supportedMethods.filter((method) => !(method in handlers) && method !== 'HEAD' && method !== 'OPTIONS')
  app.route({ method: others, url: endpoint, onRequest: refuseMethod, handler: methodNotAllowed })
}

export default mcpRoutes
