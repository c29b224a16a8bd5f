// Requests to backends (each one timed, whoever sent it: a client's call, a list fetch) and stdio
// child restarts, on the app's own Registry. Labels: backend names from the config, OUTCOME values.
import { Counter, type Registry } from 'prom-client'
import { PathHistogram } from './path-series.ts'
import type { Outcome } from './metrics.ts'

export interface UpstreamMetrics {
  observeRequest(backend: string, outcome: Outcome, seconds: number): void
  countStdioRestart(backend: string): void
}

export function createUpstreamMetrics(registry: Registry, buckets: number[]): UpstreamMetrics {
  const duration = new PathHistogram({
    name: 'mcp_gateway_upstream_request_duration_seconds',
    help: 'Time from sending a request to a backend to its answer, by backend and outcome',
    labelNames: ['backend', 'outcome'],
    buckets,
    registers: [registry],
  })
  const restarts = new Counter({ name: 'mcp_gateway_stdio_restarts_total', help: 'stdio backend children restarted (after an exit or a failed start)', labelNames: ['backend'], registers: [registry] })
  return {
    observeRequest(backend, outcome, seconds) {
      duration.observe(seconds, backend, outcome)
    },
    countStdioRestart(backend) {
      restarts.inc({ backend })
    },
  }
}
