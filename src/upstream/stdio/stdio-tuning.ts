// Timing knobs of a stdio backend that the configuration does not carry, with their defaults,
// and the restart backoff policy (STDIO-9).
import type { ServerInfo } from '../../protocol/result.ts'
import type { BackoffPolicy } from '../shared/backoff.ts'
import { DEFAULT_STDERR_LINES_PER_SECOND } from './stdio-stderr.ts'

export interface StdioBackendTuning {
  // How long the era probe waits for each of server/discover and initialize (STDIO-11).
  probeTimeoutMs: number
  // Restart delay after the first failure, doubled per failure up to `restartMaxMs`.
  restartInitialMs: number
  restartMaxMs: number
  // A child that stayed up this long before dying restarts from `restartInitialMs` again.
  stableUptimeMs: number
  // Wait after closing stdin, then again after SIGTERM, before escalating (STDIO-8).
  killGraceMs: number
  stderrLinesPerSecond: number
}

export const DEFAULT_CLIENT_INFO: Readonly<ServerInfo> = Object.freeze({ name: 'mcp-gateway', version: '0.1.0' })

export const DEFAULT_STDIO_TUNING: Readonly<StdioBackendTuning> = Object.freeze({
  probeTimeoutMs: 10_000,
  restartInitialMs: 250,
  restartMaxMs: 30_000,
  stableUptimeMs: 60_000,
  killGraceMs: 2_000,
  stderrLinesPerSecond: DEFAULT_STDERR_LINES_PER_SECOND,
})

// STDIO-9: the restart backoff (shared/backoff.ts): 250 ms, 500 ms, 1 s … capped at `restartMaxMs`.
export function toRestartBackoff(tuning: Pick<StdioBackendTuning, 'restartInitialMs' | 'restartMaxMs'>): BackoffPolicy {
  return { initialMs: tuning.restartInitialMs, maxMs: tuning.restartMaxMs }
}
