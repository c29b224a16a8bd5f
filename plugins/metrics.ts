// The app's own prom-client Registry and instruments (no default registry: two apps never mix).
import fp from 'fastify-plugin'
import { Registry } from 'prom-client'
import { createMetrics, type GatewayMetrics } from '../src/observability/metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry
    metrics: GatewayMetrics
  }
}

export default fp(async function metricsPlugin(app) {
  const registry = new Registry()
  app.decorate('registry', registry)
  app.decorate('metrics', createMetrics(registry))
}, { name: 'metrics' })
