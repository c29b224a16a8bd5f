// The app's own prom-client Registry and instruments (no default registry: two apps never mix).
import fp from 'fastify-plugin'
import { Registry } from 'prom-client'
import type { GatewayConfig } from '../src/config/types.ts'
import { createMetrics, type GatewayMetrics } from '../src/observability/metrics.ts'
import { registerProcessMetrics } from '../src/observability/process-metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry
    metrics: GatewayMetrics
  }
}

export interface MetricsPluginOptions {
  config: GatewayConfig
  version: string
}

export default fp<MetricsPluginOptions>(async function metricsPlugin(app, { config, version }) {
  const registry = new Registry()
  // The duration buckets reach past the longest backend timeout (README "Operations").
  const maxTimeoutMs = Math.max(0, ...config.backends.map((b) => b.timeoutMs))
  app.decorate('registry', registry)
  app.decorate('metrics', createMetrics(registry, { maxTimeoutMs, toolLabelLimit: config.toolLabelLimit }))
  registerProcessMetrics(registry, version)
}, { name: 'metrics' })
