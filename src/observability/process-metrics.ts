// What runs: build_info{version,node} = 1, and prom-client's default process and Node.js metrics,
// all with the `mcp_gateway_` prefix, on the app's own Registry (never the default one).
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client'

export const METRIC_PREFIX = 'mcp_gateway_'

export function registerProcessMetrics(registry: Registry, version: string): void {
  const info = new Gauge({ name: `${METRIC_PREFIX}build_info`, help: 'Always 1: the gateway version and the Node.js version', labelNames: ['version', 'node'], registers: [registry] })
  info.set({ version, node: process.version }, 1)
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX })
}
