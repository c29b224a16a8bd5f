// The MCP endpoint: POST carries every message; GET and DELETE are for legacy sessions only (405).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { GatewayError } from '../src/errors.ts'
import { handleMcpPost, type McpHandlerDeps } from '../src/front/mcp-handler.ts'
import type { LegacyFront } from '../src/front/legacy/create-legacy-front.ts'

export interface McpRouteOptions {
  endpoint: string
  deps: McpHandlerDeps
  // Legacy sessions' GET stream and DELETE (LEGACY-5, LEGACY-9); absent: modern only.
  legacy?: Pick<LegacyFront, 'get' | 'delete'>
}

// As for POST: headers set by plugins (CORS) go onto the raw response before we take it over.
function takeOver(request: FastifyRequest, reply: FastifyReply): void {
  if (request.headers.origin !== undefined) {
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
  }
  reply.hijack()
}

const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, { endpoint, deps, legacy }) => {
  app.post(endpoint, async (request, reply) => {
    // Headers set by plugins (CORS) go onto the raw response before we take it over.
    if (request.headers.origin !== undefined) {
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
    }
    reply.hijack()
    await handleMcpPost(deps, {
      headers: request.headers, body: request.body, res: reply.raw, log: request.log, reqId: request.id, url: request.url, remoteAddress: request.socket.remoteAddress,
    })
  })
  // HTTP-10: GET and DELETE naming no legacy session are 405 with Allow: POST.
  app.route({
    method: ['GET', 'DELETE'],
    url: endpoint,
    handler: async (request, reply) => {
      if (legacy === undefined || request.headers['mcp-session-id'] === undefined) throw new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED')
      takeOver(request, reply)
      const session = { headers: request.headers, res: reply.raw, log: request.log, reqId: request.id, url: request.url, remoteAddress: request.socket.remoteAddress }
      await (request.method === 'GET' ? legacy.get(session) : legacy.delete(session))
    },
  })
  app.route({
    method: ['PUT', 'PATCH'],
    url: endpoint,
    handler: async () => {
      throw new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED')
    },
  })
}

export default mcpRoutes
