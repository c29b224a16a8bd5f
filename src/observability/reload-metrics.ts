// Config reloads (SIGHUP, POST /admin/reload), on the app's own Registry; the one label is bounded
// to the outcomes of src/lifecycle/reload.ts.
import { Counter, type Registry } from 'prom-client'

export interface ReloadMetrics {
  counted(outcome: string): void
}

export function createReloadMetrics(registry: Registry): ReloadMetrics {
  const reloads = new Counter({
    name: 'mcp_gateway_config_reloads_total',
    help: 'Config reloads, by outcome (applied, unchanged, refused, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  })
  return { counted: (outcome) => reloads.labels({ outcome }).inc() }
}
