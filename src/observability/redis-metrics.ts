// Shared-state (Redis) instruments, on the app's own Registry. Labels are bounded: `op` is one of
// the fixed uses below, `what` one of the things that need shared state; never a key or a session.
import { Counter, Gauge, type Registry } from 'prom-client'

export const REDIS_OPS = ['rate_limit', 'replay', 'session', 'ended', 'hand_off', 'liveness', 'load'] as const
export type RedisOp = (typeof REDIS_OPS)[number]

// What cannot be done while Redis is unreachable (readyz, logs, refusals metric).
export const NEEDS_SHARED_STATE = ['hand_off', 'session_state', 'session_delete', 'state_single_use', 'rate_limit'] as const
export type SharedNeed = (typeof NEEDS_SHARED_STATE)[number]

export interface RedisMetrics {
  // One command sent (a script counts as one), by use.
  command(op: RedisOp): void
  failed(op: RedisOp): void
  setUp(up: boolean): void
  // The rate limit let a request through because Redis could not be asked.
  failedOpen(): void
  // A request refused because what it needs lives in Redis and Redis is unreachable.
  unavailable(what: SharedNeed): void
}

export function createRedisMetrics(registry: Registry): RedisMetrics {
  const commands = new Counter({ name: 'mcp_gateway_redis_commands_total', help: 'Redis commands sent (a script is one), by use', labelNames: ['op'], registers: [registry] })
  const failures = new Counter({ name: 'mcp_gateway_redis_errors_total', help: 'Redis commands that failed or timed out, by use', labelNames: ['op'], registers: [registry] })
  const up = new Gauge({ name: 'mcp_gateway_redis_up', help: '1 while the shared-state Redis is connected, 0 while it is not', registers: [registry] })
  const failOpen = new Counter({ name: 'mcp_gateway_rate_limit_fail_open_total', help: 'Requests let through unlimited because Redis was unreachable', registers: [registry] })
  const refused = new Counter({ name: 'mcp_gateway_shared_state_unavailable_total', help: 'Requests refused because the shared state they need is unreachable, by need', labelNames: ['what'], registers: [registry] })
  const byOp = new Map(REDIS_OPS.map((op) => [op, { sent: commands.labels({ op }), failed: failures.labels({ op }) }]))
  for (const what of NEEDS_SHARED_STATE) refused.labels({ what })
  return {
    command: (op) => byOp.get(op)!.sent.inc(),
    failed: (op) => byOp.get(op)!.failed.inc(),
    setUp: (value) => up.set(value ? 1 : 0),
    failedOpen: () => failOpen.inc(),
    unavailable: (what) => refused.labels({ what }).inc(),
  }
}
