// Prometheus scrape endpoint, from the app's own registry.
import type { FastifyPluginAsync } from 'fastify'

const metricsRoutes: FastifyPluginAsync = async (app) => {
  app.get('/metrics', async (_request, reply) => {
    const body = await app.registry.metrics()
    return reply.type(app.registry.contentType).send(body)
  })
}

export default metricsRoutes
