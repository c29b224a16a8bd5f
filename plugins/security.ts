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
  // Callback style: no promise per request on the hot path.
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    if (request.routeOptions.url !== options.endpoint) return done()
    if (!isHostAllowed(options.allowedHosts, request.headers.host)) return done(new GatewayError('MCP_GATEWAY_HTTP_HOST_FORBIDDEN'))
    if (!isOriginAllowed(options.allowedOrigins, request.headers.origin)) return done(new GatewayError('MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN'))
    done()
  })
}, { name: 'security' })
