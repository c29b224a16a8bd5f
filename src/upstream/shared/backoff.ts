// The one backoff rule of the upstream side: re-probes of a down backend (ERA-3, STDIO-13), stdio
// restarts (STDIO-9) and listen re-opens (SUB-11) wait `initialMs · 2^attempt`, capped at `maxMs`,
// optionally shortened by up to `jitterRatio` of it so that many waiters do not fire together.
export interface BackoffPolicy {
  initialMs: number
  maxMs: number
  // 0 (the default) to 1: the fraction of each delay that may be taken off at random.
  jitterRatio?: number
}

// Re-probes and listen re-opens: 500 ms, 1 s, 2 s … 30 s.
export const REPROBE_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ initialMs: 500, maxMs: 30_000 })

// Attempts beyond this double nothing more (and keep 2^attempt finite).
const MAX_DOUBLINGS = 30

// `attempt` counts from 0 (the first wait is `initialMs`); `random` returns [0, 1).
export function computeBackoffMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const delayMs = Math.min(policy.initialMs * 2 ** Math.min(Math.max(attempt, 0), MAX_DOUBLINGS), policy.maxMs)
  const jitterRatio = policy.jitterRatio ?? 0
  return jitterRatio > 0 ? Math.round(delayMs * (1 - jitterRatio * random())) : delayMs
}

// A timer that never holds the process open.
export function startTimer(delayMs: number, onFire: () => void): NodeJS.Timeout {
  const timer = setTimeout(onFire, delayMs)
  timer.unref()
  return timer
}
