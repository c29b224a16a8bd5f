// Host and Origin allow-lists on the MCP endpoint (SEC-1, SEC-2), checked before the body is read.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { GatewayError } from '../src/errors.ts'
import { isHostAllowed, isOriginAllowed } from '../src/protocol/origin.ts'

export interface SecurityPluginOptions {
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
  endpoint: string
}

export default fp<SecurityPluginOptions>(async function securityPlugin(app, options) {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.url !== options.endpoint) return
    const origin = request.headers.origin
    if (!isHostAllowed(options.allowedHosts, request.headers.host)) throw new GatewayError('MCP_GATEWAY_HTTP_HOST_FORBIDDEN')
    if (!isOriginAllowed(options.allowedOrigins, origin)) throw new GatewayError('MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN')
    void reply
  })
}, { name: 'security' })
