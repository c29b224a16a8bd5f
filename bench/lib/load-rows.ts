// Request factories for the load scenarios and the table rows built from their measures.
import type { Pool } from 'undici'
import type { BenchContext, Target } from './context.ts'
import type { LoadTarget, RoundFigures, TargetMeasure } from './load-scenario.ts'
import {
  createLegacyInitialize, createLegacyRequest, createLegacyToolCall, createModernToolCall, type LegacySession, type OutgoingRequest
} from './mcp-messages.ts'
import type { Cell, Column, RatioLine } from './report.ts'
import { describeFailure, exchange, isResult } from './rpc-exchange.ts'
import { summarizeNs } from './stats.ts'

const CALL_ARGS = { text: 'hello' }
const KB_PER_MB = 1024

export const LOAD_COLUMNS: Column[] = [
  { key: 'target', label: 'target' },
  { key: 'rps', label: 'req/s', digits: 0 },
  { key: 'p50Ms', label: 'p50 ms', digits: 3 },
  { key: 'p99Ms', label: 'p99 ms', digits: 3 },
  { key: 'cpuUsPerReq', label: 'CPU µs/req', digits: 1 },
  { key: 'peakRssMb', label: 'peak RSS MB', digits: 1 },
  { key: 'errors', label: 'errors', digits: 0 }
]

export async function openLegacySession(pool: Pool, path: string): Promise<LegacySession> {
  const init = await exchange(pool, { path, request: createLegacyInitialize(0) })
  if (!isResult(init) || init.sessionId === undefined) throw new Error(`initialize: ${describeFailure(init)}`)
  const result = init.response?.result as { protocolVersion?: unknown }
  const session = { sessionId: init.sessionId, protocolVersion: String(result.protocolVersion) }
  const initialized = await exchange(pool, { path, request: createLegacyRequest(undefined, 'notifications/initialized', {}, session) })
  if (initialized.status >= 300) throw new Error(`notifications/initialized: HTTP ${initialized.status}`)
  return session
}

// Requests for `tool`, each with a fresh id (and progress token), in the target's protocol.
export function createCallFactory(tool: string, withProgress: boolean): LoadTarget['prepare'] {
  return async (pool: Pool, target: Target) => {
    let id = 0
    const spec = () => {
      id++
      return { id, tool, args: CALL_ARGS, progressToken: withProgress ? `p-${id}` : undefined }
    }
    if (target.protocol === 'modern') return (): OutgoingRequest => createModernToolCall(spec())
    const session = await openLegacySession(pool, target.url.pathname)
    return (): OutgoingRequest => createLegacyToolCall(spec(), session)
  }
}

export function readPeakRssMb(ctx: BenchContext, target: Target | undefined): number | null {
  if (!target) return null
  try {
    return ctx.proc.memory(target.handle.pid).hwmKb / KB_PER_MB
  } catch {
    return null
  }
}

export function createLoadRow(ctx: BenchContext, measure: TargetMeasure, label = measure.name): Record<string, Cell> {
  if (!measure.target || measure.completed === 0) {
    return { target: label, rps: null, p50Ms: null, p99Ms: null, cpuUsPerReq: null, peakRssMb: null, errors: measure.target ? measure.errors : null }
  }
  const latency = summarizeNs(measure.latenciesNs)
  return {
    target: label,
    rps: measure.completed / (measure.elapsedNs / 1e9),
    p50Ms: latency.p50Ms,
    p99Ms: latency.p99Ms,
    cpuUsPerReq: measure.cpuMicros / measure.completed,
    peakRssMb: readPeakRssMb(ctx, measure.target),
    errors: measure.errors
  }
}

export function describeProblems(measures: TargetMeasure[]): string[] {
  const notes: string[] = []
  for (const measure of measures) {
    if (measure.note !== undefined) notes.push(measure.note)
    if (measure.reason !== undefined) notes.push(`${measure.name}: n/a (${measure.reason})`)
    else if (measure.errors > 0) notes.push(`${measure.name}: ${measure.errors} errors, first: ${measure.firstError ?? '?'}`)
  }
  return notes
}

export function findRow(rows: Record<string, Cell>[], target: string): Record<string, Cell> {
  return rows.find((row) => row.target === target) ?? {}
}

// a's figure over b's, round by round, and the median of those ratios. The two sides of a pair
// were measured in the same pass, seconds apart, so a slow spell of the machine (on a shared VM
// the same process runs up to 2x slower from one round to the next) weighs on one pair, not on
// the whole sum as in the table's figures. Shown beside the summed ratios, never instead of them.
export function createMedianRoundRatio(label: string, a: TargetMeasure, b: TargetMeasure, figure: keyof RoundFigures): RatioLine {
  const pairs = Math.min(a.rounds.length, b.rounds.length)
  const ratios: number[] = []
  for (let i = 0; i < pairs; i++) {
    const ratio = a.rounds[i][figure] / b.rounds[i][figure]
    if (Number.isFinite(ratio)) ratios.push(ratio)
  }
  if (ratios.length === 0) return { label, value: null }
  ratios.sort((x, y) => x - y)
  const mid = ratios.length >> 1
  return { label: `${label}, median of ${ratios.length} paired round${ratios.length === 1 ? '' : 's'}`, value: ratios.length % 2 === 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2 }
}
