// /livez: the process serves HTTP. /readyz: every backend probed once and enough of them up
// (src/lifecycle/readiness.ts); 503 while draining. The body lists every backend's state, era and
// why it is down, says what is missing, and gives the shared state's (Redis).
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
    // Redis down does not make a replica unready: it serves all that needs no shared state, and
    // says what it cannot do (README "Running N replicas").
    const redis = app.sharedState.status()
    return reply.code(ready ? 200 : 503).send({ ...body, ...(redis && { redis }) })
  })
}

export default healthRoutes
