// sessions_active: legacy sessions that sent a request within the window, on a registry of the test's own.
import t from 'tap'
import { Registry } from 'prom-client'
import { createSessionMetrics, SESSION_WINDOW_MS } from '../../../src/observability/session-metrics.ts'

t.test('seen → counted until the window passes; ended → gone at once; seen again → counted once', async (t) => {
  let now = 1_000_000
  const registry = new Registry()
  const sessions = createSessionMetrics(registry, () => now)
  const active = async (): Promise<number> => (await registry.getSingleMetric('mcp_gateway_sessions_active')!.get()).values[0].value
  sessions.seen('s1')
  sessions.seen('s2')
  sessions.seen('s1')
  t.equal(await active(), 2)
  sessions.ended('s2')
  t.equal(await active(), 1)
  now += SESSION_WINDOW_MS - 1
  t.equal(await active(), 1, 'still inside the window')
  now += 1
  t.equal(await active(), 0, 'quiet for the whole window → not active')
})
