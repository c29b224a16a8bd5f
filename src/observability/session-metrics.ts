// Legacy (2025-11-25) sessions seen recently: a session id is a sealed token the gateway keeps no
// record of, so "active" means "sent a request within `windowMs`". Counted per replica; bounded
// (past `maxTracked` ids, the oldest are forgotten).
import { Gauge, type Registry } from 'prom-client'

export const SESSION_WINDOW_MS = 5 * 60_000
const MAX_TRACKED = 100_000

export interface SessionMetrics {
  seen(sessionId: string): void
  ended(sessionId: string): void
}

export function createSessionMetrics(registry: Registry, now: () => number = Date.now): SessionMetrics {
  // Insertion order = last-seen order (a seen id is moved to the end).
  const lastSeen = new Map<string, number>()
  const prune = (): void => {
    const oldest = now() - SESSION_WINDOW_MS
    for (const [id, at] of lastSeen) {
      if (at > oldest && lastSeen.size <= MAX_TRACKED) break
      lastSeen.delete(id)
    }
  }
  new Gauge({
    name: 'mcp_gateway_sessions_active', help: `Legacy sessions that sent a request in the last ${SESSION_WINDOW_MS / 60_000} minutes (this replica)`, registers: [registry],
    collect() {
      prune()
      this.set(lastSeen.size)
    },
  })
  return {
    seen(sessionId) {
      lastSeen.delete(sessionId)
      lastSeen.set(sessionId, now())
      if (lastSeen.size > MAX_TRACKED) prune()
    },
    ended(sessionId) {
      lastSeen.delete(sessionId)
    },
  }
}
