// Latency summaries from nanosecond samples.
export interface LatencySummary {
  count: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  meanMs: number
}

const NS_PER_MS = 1_000_000

export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)
  return sorted[Math.max(0, index)]
}

export function summarizeNs(samples: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samples).sort()
  let total = 0
  for (const value of sorted) total += value
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 0.5) / NS_PER_MS,
    p99Ms: percentile(sorted, 0.99) / NS_PER_MS,
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1] / NS_PER_MS : Number.NaN,
    meanMs: sorted.length > 0 ? total / sorted.length / NS_PER_MS : Number.NaN
  }
}

export function concatSamples(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

export function ratio(numerator: number, denominator: number): number {
  return denominator > 0 && Number.isFinite(numerator) ? numerator / denominator : Number.NaN
}
