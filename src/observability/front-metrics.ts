// The front door's gauges (README "Metrics"), read when scraped: client connections and
// long-lived streams open now, open file descriptors and the soft limit on them. Refusals are
// counted in mcp_gateway_limit_refusals_total (metrics.ts, backend "").
import { Gauge, type Registry } from 'prom-client'

export interface FrontGauges {
  connections(): number
  streams(): number
  fds(): number | undefined
  fdLimit: number | undefined
}

export function createFrontMetrics(registry: Registry, gauges: FrontGauges): void {
  new Gauge({ name: 'mcp_gateway_connections_open', help: 'Client connections open now', registers: [registry], collect() {
    this.set(gauges.connections())
  } })
  new Gauge({ name: 'mcp_gateway_streams_open', help: 'Long-lived streams (subscriptions/listen, legacy GET) open now', registers: [registry], collect() {
    this.set(gauges.streams())
  } })
  new Gauge({ name: 'mcp_gateway_open_fds', help: 'Open file descriptors of the process (Linux)', registers: [registry], collect() {
    const fds = gauges.fds()
    if (fds !== undefined) this.set(fds)
  } })
  new Gauge({ name: 'mcp_gateway_fd_limit', help: 'Soft limit on open file descriptors (RLIMIT_NOFILE)', registers: [registry], collect() {
    if (gauges.fdLimit !== undefined) this.set(gauges.fdLimit)
  } })
}
