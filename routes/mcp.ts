// The MCP endpoint: POST carries every message; GET and DELETE are for legacy sessions only (405).
import type { FastifyPluginAsync } from 'fastify'
import { GatewayError } from '../src/errors.ts'
import { handleMcpPost, type McpHandlerDeps } from '../src/front/mcp-handler.ts'

export interface McpRouteOptions {
  endpoint: string
  deps: McpHandlerDeps
}

const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, { endpoint, deps }) => {
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
  // HTTP-10: no legacy session can exist yet, so GET and DELETE are 405 with Allow: POST.
  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: endpoint,
    handler: async () => {
      throw new GatewayError('MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED')
    },
  })
}

export default mcpRoutes
