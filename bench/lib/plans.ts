// How long and how hard each mode drives the targets. Every loop is bounded in count and time.
import type { BenchOptions } from './context.ts'
import type { LoadPlan } from './load-scenario.ts'

const MAX_REQUESTS_PER_RUN = 500_000

export function createLoadPlan(options: BenchOptions, overrides: Partial<LoadPlan> = {}): LoadPlan {
  return {
    rounds: options.rounds ?? (options.quick ? 1 : 3),
    durationMs: options.quick ? 1_000 : 4_000,
    warmupMs: options.quick ? 200 : 500,
    firstWarmupMs: options.quick ? 500 : 3_000,
    connections: options.connections,
    maxRequests: MAX_REQUESTS_PER_RUN,
    expectedNotifications: 0,
    trackEventLatency: false,
    ...overrides
  }
}

export interface ListenPlan {
  streams: number
  keepAliveMs: number
  holdMs: number
  openConcurrency: number
}

export function createListenPlan(options: BenchOptions): ListenPlan {
  return options.quick
    ? { streams: 1_000, keepAliveMs: 500, holdMs: 1_600, openConcurrency: 100 }
    : { streams: 10_000, keepAliveMs: 2_000, holdMs: 5_000, openConcurrency: 200 }
}

export function createCancelIterations(options: BenchOptions): number {
  return options.quick ? 40 : 200
}

export function createColdStartRepeats(options: BenchOptions): number {
  return options.quick ? 2 : 5
}
