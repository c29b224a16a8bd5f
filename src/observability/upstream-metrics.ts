// Requests to backends (each one timed, whoever sent it: a client's call, a list fetch) and stdio
// child restarts, on the app's own Registry. Labels: backend names from the config, OUTCOME values.
import { Counter, Histogram, type Registry } from 'prom-client'
import type { Outcome } from './metrics.ts'

export interface UpstreamMetrics {
  observeRequest(backend: string, outcome: Outcome, seconds: number): void
  countStdioRestart(backend: string): void
}

export function createUpstreamMetrics(registry: Registry, buckets: number[]): UpstreamMetrics {
  const duration = new Histogram({
    name: 'mcp_gateway_upstream_request_duration_seconds',
    help: 'Time from sending a request to a backend to its answer, by backend and outcome',
    labelNames: ['backend', 'outcome'],
    buckets,
    registers: [registry],
  })
  const restarts = new Counter({ name: 'mcp_gateway_stdio_restarts_total', help: 'stdio backend children restarted (after an exit or a failed start)', labelNames: ['backend'], registers: [registry] })
  const children = new Map<string, ReturnType<typeof duration.labels>>()
  return {
    observeRequest(backend, outcome, seconds) {
      const key = `${backend} ${outcome}`
      let child = children.get(key)
      if (!child) children.set(key, (child = duration.labels({ backend, outcome })))
      child.observe(seconds)
    },
    countStdioRestart(backend) {
      restarts.inc({ backend })
    },
  }
}
