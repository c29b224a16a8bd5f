// The one clock of durations (metrics, access lines): performance.now(), a double in milliseconds,
// where process.hrtime.bigint() allocated a BigInt per reading and per difference.
export function clockMs(): number {
  return performance.now()
}

export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000
}
