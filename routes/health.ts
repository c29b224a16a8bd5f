// /livez: the process serves HTTP. /readyz: every backend probed once and enough of them up
// (src/lifecycle/readiness.ts); 503 while draining. The body lists every backend's state, era and
// why it is down, and says what is missing.
import type { FastifyPluginAsync } from 'fastify'
import { readiness } from '../src/lifecycle/readiness.ts'

export interface HealthRouteOptions {
  minBackendsUp?: number
}

const healthRoutes: FastifyPluginAsync<HealthRouteOptions> = async (app, { minBackendsUp }) => {
  app.get('/livez', async () => ({ status: 'ok' }))
  app.get('/readyz', async (_request, reply) => {
    const probed = app.gateway.firstProbed
    const backends = app.gateway.backends.entries.map((e) => ({ status: e.backend.status(), required: e.config.required !== false, probed: probed.has(e.backend.name) }))
    const verdict = readiness({ backends, minBackendsUp, draining: app.lifecycle.draining })
    const { ready, ...body } = verdict
    return reply.code(ready ? 200 : 503).send(body)
  })
}

export default healthRoutes
