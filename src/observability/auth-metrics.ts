// Authentication and rate-limit instruments, on the app's own Registry. Labels are bounded: the
// refusal's catalogue code, never a principal or a token.
import { Counter, type Registry } from 'prom-client'
import type { ErrorCode } from '../errors.ts'

export interface AuthMetrics {
  // A request refused by authentication (401, 403, 400, 503) or by the rate limit (429).
  refused(code: ErrorCode): void
}

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const refusals = new Counter({
    name: 'mcp_gateway_auth_refusals_total',
    help: 'Requests refused by authentication, authorization or the rate limit, by error code',
    labelNames: ['code'],
    registers: [registry],
  })
  const limited = new Counter({ name: 'mcp_gateway_rate_limited_total', help: 'Requests refused by the rate limit (429)', registers: [registry] })
  const children = new Map<string, ReturnType<typeof refusals.labels>>()
  return {
    refused(code) {
      let child = children.get(code)
      if (!child) children.set(code, (child = refusals.labels({ code })))
      child.inc()
      if (code === 'MCP_GATEWAY_RATE_LIMITED') limited.inc()
    },
  }
}
