// /livez: the process serves HTTP. /readyz: at least one backend is up (or none is configured);
// the body lists every backend's state, era and why it is down, and the shared state's (Redis).
import type { FastifyPluginAsync } from 'fastify'

const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/livez', async () => ({ status: 'ok' }))
  app.get('/readyz', async (_request, reply) => {
    const backends = app.gateway.backends.entries.map((e) => e.backend.status())
    const ready = backends.length === 0 || backends.some((b) => b.up)
    // Redis down does not make a replica unready: it serves all that needs no shared state, and
    // says what it cannot do (README "Running N replicas").
    const redis = app.sharedState.status()
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', backends, ...(redis && { redis }) })
  })
}

export default healthRoutes
