// Authentication and rate-limit instruments, on the app's own Registry. Labels are bounded: the
// refusal's catalogue code, never a principal or a token.
import { Counter, type Registry } from 'prom-client'
import type { ErrorCode } from '../errors.ts'

export interface AuthMetrics {
  // A request refused by authentication (401, 403, 400, 503) or by the rate limit (429).
  refused(code: ErrorCode): void
}

// Why authentication failed, in a few stable words (mcp_gateway_auth_failures_total{reason}); the
// rate limit is counted apart (mcp_gateway_rate_limited_total).
const FAILURE_REASONS: Partial<Record<ErrorCode, string>> = {
  MCP_GATEWAY_AUTH_REQUIRED: 'missing_token',
  MCP_GATEWAY_AUTH_INVALID_TOKEN: 'invalid_token',
  MCP_GATEWAY_AUTH_TOKEN_IN_QUERY: 'token_in_query',
  MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE: 'insufficient_scope',
  MCP_GATEWAY_AUTH_UNAVAILABLE: 'verifier_unavailable',
}

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const refusals = new Counter({
    name: 'mcp_gateway_auth_refusals_total',
    help: 'Requests refused by authentication, authorization or the rate limit, by error code',
    labelNames: ['code'],
    registers: [registry],
  })
  const limited = new Counter({ name: 'mcp_gateway_rate_limited_total', help: 'Requests refused by the rate limit (429)', registers: [registry] })
  const failures = new Counter({ name: 'mcp_gateway_auth_failures_total', help: 'Requests refused by authentication or authorization, by reason', labelNames: ['reason'], registers: [registry] })
  const children = new Map<string, ReturnType<typeof refusals.labels>>()
  return {
    refused(code) {
      let child = children.get(code)
      if (!child) children.set(code, (child = refusals.labels({ code })))
      child.inc()
      if (code === 'MCP_GATEWAY_RATE_LIMITED') limited.inc()
      else failures.inc({ reason: FAILURE_REASONS[code] ?? 'other' })
    },
  }
}
