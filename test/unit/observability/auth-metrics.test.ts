// Authentication refusals by code (kept), failures by reason, the rate limit apart; on a real
// prom-client Registry of the test's own.
import t from 'tap'
import { Registry } from 'prom-client'
import { createAuthMetrics } from '../../../src/observability/auth-metrics.ts'

t.test('refusals → auth_refusals_total by code, auth_failures_total by reason, rate_limited_total', async (t) => {
  const registry = new Registry()
  const metrics = createAuthMetrics(registry)
  for (const code of ['MCP_GATEWAY_AUTH_REQUIRED', 'MCP_GATEWAY_AUTH_REQUIRED', 'MCP_GATEWAY_AUTH_INVALID_TOKEN', 'MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE', 'MCP_GATEWAY_RATE_LIMITED'] as const) metrics.refused(code)
  const value = async (name: string, labels: Record<string, string> = {}): Promise<number | undefined> => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)
    return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value
  }
  t.equal(await value('mcp_gateway_auth_failures_total', { reason: 'missing_token' }), 2)
  t.equal(await value('mcp_gateway_auth_failures_total', { reason: 'invalid_token' }), 1)
  t.equal(await value('mcp_gateway_auth_failures_total', { reason: 'insufficient_scope' }), 1)
  t.equal(await value('mcp_gateway_rate_limited_total'), 1)
  t.equal(await value('mcp_gateway_auth_refusals_total', { code: 'MCP_GATEWAY_RATE_LIMITED' }), 1, 'the code series is kept')
  const reasons = (await registry.getMetricsAsJSON()).find((m) => m.name === 'mcp_gateway_auth_failures_total')!.values.map((v) => v.labels.reason)
  t.notOk(reasons.includes('rate_limited' as never), 'the rate limit is not an authentication failure')
})
