// Histogram buckets for MCP calls (README "Operations"): 1 ms to 60 s, and one more bucket at the
// largest configured backend timeout when that is longer, so a call that runs into its timeout
// still lands in a finite bucket (p99 stays computable).
export const CALL_BUCKETS_SECONDS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

export function callBuckets(maxTimeoutMs: number): number[] {
  const largest = Math.ceil(maxTimeoutMs / 1000)
  const last = CALL_BUCKETS_SECONDS[CALL_BUCKETS_SECONDS.length - 1]
  return largest > last ? [...CALL_BUCKETS_SECONDS, largest] : [...CALL_BUCKETS_SECONDS]
}
