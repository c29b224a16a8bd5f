// Runs closed-loop load against several targets side by side: rounds alternate the targets (with
// a rotating start so no target always goes first), each round warms up, then measures requests,
// latency, and the target process's own CPU time from /proc.
import { Pool } from 'undici'
import type { BenchContext, Target, TargetSlot } from './context.ts'
import { runLoad, type LoadSpec } from './load-generator.ts'
import type { Json, OutgoingRequest } from './mcp-messages.ts'
import { concatSamples } from './stats.ts'

const REQUEST_TIMEOUT_MS = 15_000

export interface LoadTarget {
  slot: TargetSlot
  // Prepares per-target state (e.g. a legacy session) and returns the request factory.
  prepare(pool: Pool, target: Target): Promise<() => OutgoingRequest>
  // More options for the client pool (a CA to trust, allowH2).
  poolOptions?: Pool.Options
}

export interface LoadPlan {
  rounds: number
  durationMs: number
  // Before each round's measure, and (firstWarmupMs) once per target before the first round: the
  // rows compare warmed-up processes (optimised code, grown young generation), not how soon each
  // gets there (start-up has scenario 6).
  warmupMs: number
  firstWarmupMs: number
  connections: number
  maxRequests: number
  expectedNotifications: number
  trackEventLatency: boolean
}

export interface TargetMeasure {
  name: string
  target?: Target
  reason?: string
  note?: string
  completed: number
  errors: number
  elapsedNs: number
  cpuMicros: number
  latenciesNs: Float64Array
  eventLatenciesNs: Float64Array
  firstError?: string
  // Each round's own figures, in round order (lib/load-rows.ts pairs them across targets).
  rounds: RoundFigures[]
}

export interface RoundFigures {
  cpuUsPerReq: number
  rps: number
}

interface Running {
  measure: TargetMeasure
  pool: Pool
  next: () => OutgoingRequest
  latencyParts: Float64Array[]
  events: number[]
  warmed: boolean
}

function createEventRecorder(events: number[]): (message: Json, receivedNs: bigint) => void {
  return (message, receivedNs) => {
    const params = message.params as Json | undefined
    if (typeof params?.message !== 'string') return
    try {
      events.push(Number(receivedNs - BigInt(params.message)))
    } catch {
      // not a fixture timestamp
    }
  }
}

async function measureRound(ctx: BenchContext, running: Running, plan: LoadPlan): Promise<void> {
  const target = running.measure.target as Target
  const spec: LoadSpec = {
    dispatcher: running.pool,
    path: target.url.pathname,
    connections: plan.connections,
    maxRequests: plan.maxRequests,
    durationMs: plan.durationMs,
    createRequest: running.next,
    expectedNotifications: plan.expectedNotifications
  }
  await runLoad({ ...spec, durationMs: running.warmed ? plan.warmupMs : plan.firstWarmupMs })
  running.warmed = true
  const onNotification = plan.trackEventLatency ? createEventRecorder(running.events) : undefined
  const pids = target.measuredPids ?? [target.handle.pid]
  const cpu = (): number => pids.reduce((sum, pid) => sum + ctx.proc.cpuMicros(pid), 0)
  const cpuBefore = cpu()
  const result = await runLoad({ ...spec, onNotification })
  const cpuMicros = cpu() - cpuBefore
  running.measure.cpuMicros += cpuMicros
  // A round with no call completed is kept (as NaN) so that round i stays round i.
  const done = result.completed > 0
  running.measure.rounds.push({ cpuUsPerReq: done ? cpuMicros / result.completed : NaN, rps: done ? result.completed / (result.elapsedNs / 1e9) : NaN })
  running.measure.completed += result.completed
  running.measure.errors += result.errors
  running.measure.elapsedNs += result.elapsedNs
  running.measure.firstError ??= result.firstError
  running.latencyParts.push(Float64Array.from(result.latenciesNs))
}

function createMeasure(slot: TargetSlot): TargetMeasure {
  const empty = new Float64Array(0)
  return {
    name: slot.name, target: slot.target, reason: slot.reason, note: slot.note,
    completed: 0, errors: 0, elapsedNs: 0, cpuMicros: 0, latenciesNs: empty, eventLatenciesNs: empty, rounds: []
  }
}

async function prepareTarget(entry: LoadTarget, plan: LoadPlan): Promise<Running | TargetMeasure> {
  const measure = createMeasure(entry.slot)
  if (!measure.target) return measure
  const pool = new Pool(measure.target.url.origin, {
    connections: plan.connections, pipelining: 1, bodyTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, ...entry.poolOptions
  })
  try {
    return { measure, pool, next: await entry.prepare(pool, measure.target), latencyParts: [], events: [], warmed: false }
  } catch (err) {
    await pool.close()
    return { ...measure, target: undefined, reason: `setup failed: ${err instanceof Error ? err.message : String(err)}` }
  }
}

export async function runAlternating(ctx: BenchContext, entries: LoadTarget[], plan: LoadPlan): Promise<TargetMeasure[]> {
  const prepared = await Promise.all(entries.map((entry) => prepareTarget(entry, plan)))
  const running = prepared.filter((item): item is Running => 'pool' in item)
  try {
    for (let round = 0; round < plan.rounds; round++) {
      for (let i = 0; i < running.length; i++) await measureRound(ctx, running[(round + i) % running.length], plan)
    }
  } finally {
    await Promise.all(running.map((item) => item.pool.close()))
  }
  return prepared.map((item) => {
    if (!('pool' in item)) return item
    return { ...item.measure, latenciesNs: concatSamples(item.latencyParts), eventLatenciesNs: Float64Array.from(item.events) }
  })
}
