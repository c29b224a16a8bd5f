// POST /admin/reload (README "Reload without restart"): registered only when adminToken is set;
// behind the same Host and Origin guards as the MCP endpoint (SEC-1, SEC-2), then the admin bearer
// token, compared in constant time. Never served on the MCP endpoint.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { ERRORS, GatewayError } from '../src/errors.ts'
import { hostGuard, originGuard, runGuards } from '../src/front/guards.ts'
import { RELOAD_OUTCOME, type Reloader } from '../src/lifecycle/reload.ts'

export const ADMIN_RELOAD_PATH = '/admin/reload'

// The body always holds the whole outcome; a reload that did not apply also says so by its status.
const FAILED_STATUS: ReadonlyMap<string, number> = new Map([
  [RELOAD_OUTCOME.refused, ERRORS.MCP_GATEWAY_CONFIG_RELOAD_REFUSED.httpStatus],
  [RELOAD_OUTCOME.failed, ERRORS.MCP_GATEWAY_INTERNAL.httpStatus],
])

export interface AdminRouteOptions {
  token: string
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
  reloader: Reloader
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

// Constant time whatever the length: both sides hashed first.
export function isAdminToken(expected: Buffer, authorization: string | undefined): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null
}

const adminRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const guards = [hostGuard(options.allowedHosts), originGuard(options.allowedOrigins)]
  const expected = digest(options.token)
  const checkToken = (request: FastifyRequest, reply: FastifyReply): GatewayError | undefined => {
    if (isAdminToken(expected, request.headers.authorization)) return undefined
    reply.header('www-authenticate', 'Bearer realm="mcp-gateway-admin"')
    return new GatewayError('MCP_GATEWAY_ADMIN_UNAUTHORIZED')
  }
  app.route({
    method: 'POST',
    url: ADMIN_RELOAD_PATH,
    onRequest: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => runGuards(guards, request, (err) => done(err ?? checkToken(request, reply))),
    handler: async (_request, reply) => {
      const result = await options.reloader.request('admin')
      return reply.code(FAILED_STATUS.get(result.outcome) ?? 200).send(result)
    },
  })
}

export default adminRoutes
