// The front guards (src/front/guards.ts) in ONE onRequest hook, callback style, on every route of
// the MCP endpoint, whatever its method and whichever file registers it: the hook is attached as
// each route is declared (onRoute), so no request pays a URL comparison and no route can miss it.
// Register before the routes.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify'
import { runGuards, type Guard } from '../src/front/guards.ts'

export interface SecurityPluginOptions {
  endpoint: string
  guards: readonly Guard[]
}

export default fp<SecurityPluginOptions>(async function securityPlugin(app, { endpoint, guards }) {
  function frontGuards(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    runGuards(guards, request, done)
  }
  app.addHook('onRoute', (route) => {
    if (route.url !== endpoint) return
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    // First, before the route's own hooks: nothing runs for a request the guards refuse.
    route.onRequest = [frontGuards as onRequestHookHandler, ...own]
  })
}, { name: 'security' })
