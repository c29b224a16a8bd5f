// Scenario 5: the client aborts an in-flight `tools/call` (closes its stream once the first
// progress event shows the backend is working); how long until the backend observes the cancel
// (HTTP: its response stream closes; stdio: notifications/cancelled arrives). The backend reports
// by loopback UDP with its monotonic clock, the same clock as ours.
import { setTimeout as sleep } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import { Pool } from 'undici'
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { createModernToolCall } from '../lib/mcp-messages.ts'
import { createCancelIterations } from '../lib/plans.ts'
import { createAbsolute, type Cell, type Column, type ScenarioReport } from '../lib/report.ts'
import { describeFailure, exchange } from '../lib/rpc-exchange.ts'
import { summarizeNs } from '../lib/stats.ts'
import { startHttpTrio } from './http-trio.ts'

const START_TIMEOUT_MS = 5_000
const OBSERVE_TIMEOUT_MS = 2_000

interface CancelRun {
  label: string
  target?: Target
  reason?: string
  tool: string
  pool?: Pool
  delaysNs: number[]
  missed: number
  errors: number
  firstError?: string
}

const COLUMNS: Column[] = [
  { key: 'target', label: 'target' },
  { key: 'observed', label: 'observed', digits: 0 },
  { key: 'p50Ms', label: 'p50 ms', digits: 3 },
  { key: 'p99Ms', label: 'p99 ms', digits: 3 },
  { key: 'maxMs', label: 'max ms', digits: 3 },
  { key: 'missed', label: 'missed', digits: 0 },
  { key: 'errors', label: 'errors', digits: 0 }
]


async function cancelOnce(ctx: BenchContext, run: CancelRun, id: number): Promise<void> {
  const target = run.target as Target
  const key = `${run.label}-${id}-${randomUUID()}`
  const controller = new AbortController()
  let markStarted = (): void => {}
  const started = new Promise<true>((resolve) => (markStarted = () => resolve(true)))
  const request = createModernToolCall({ id, tool: run.tool, args: { key }, progressToken: `cancel-${key}` })
  const done = exchange(run.pool as Pool, { path: target.url.pathname, request, signal: controller.signal, onNotification: markStarted })
    .then((result) => `ended before any progress: ${describeFailure(result)}`, (err: unknown) => String(err))
  const timeout = sleep(START_TIMEOUT_MS).then(() => `no progress in ${START_TIMEOUT_MS} ms`)
  const outcome = await Promise.race([started, done, timeout])
  const abortedNs = process.hrtime.bigint()
  controller.abort()
  await done
  if (outcome !== true) {
    run.errors++
    run.firstError ??= outcome
    return
  }
  const observedNs = await ctx.reports.waitFor(key, OBSERVE_TIMEOUT_MS)
  if (observedNs === undefined) run.missed++
  else run.delaysNs.push(Number(observedNs - abortedNs))
}

function createRow(run: CancelRun, iterations: number): Record<string, Cell> {
  if (!run.target) return { target: run.label, observed: null, p50Ms: null, p99Ms: null, maxMs: null, missed: null, errors: null }
  const delays = summarizeNs(Float64Array.from(run.delaysNs))
  const observed = `${run.delaysNs.length}/${iterations}`
  return { target: run.label, observed, p50Ms: delays.p50Ms, p99Ms: delays.p99Ms, maxMs: delays.maxMs, missed: run.missed, errors: run.errors }
}

function createRun(label: string, tool: string, slot: TargetSlot): CancelRun {
  return { label, tool, target: slot.target, reason: slot.reason, delaysNs: [], missed: 0, errors: 0 }
}

function createRuns(slots: TargetSlot[]): CancelRun[] {
  const runs: CancelRun[] = []
  for (const slot of slots) {
    if (slot.name !== 'gateway') {
      runs.push(createRun(slot.name, 'sleep', slot))
      continue
    }
    const stdio = slot.withoutStdio ? { name: slot.name, reason: 'gateway ran without its stdio backend' } : slot
    runs.push(createRun('gateway → http', 'sleep', slot), createRun('gateway → stdio', 'stdio_sleep', stdio))
  }
  for (const run of runs) if (run.target) run.pool = new Pool(run.target.url.origin, { connections: 4 })
  return runs
}

export async function runCancellation(ctx: BenchContext): Promise<ScenarioReport> {
  const iterations = createCancelIterations(ctx.options)
  const trio = await startHttpTrio(ctx)
  const runs = createRuns(trio.slots)
  try {
    for (let i = 1; i <= iterations; i++) {
      for (const run of runs) if (run.target) await cancelOnce(ctx, run, i)
    }
    const rows = runs.map((run) => createRow(run, iterations))
    const p99 = (label: string): Cell => rows.find((row) => row.target === label)?.p99Ms ?? null
    const goal = { text: '<= 50 ms', check: (v: number) => v <= 50 }
    return {
      id: 5,
      title: `cancellation: client abort → backend observes it (${iterations} calls per target)`,
      columns: COLUMNS,
      rows,
      ratios: ['gateway → http', 'gateway → stdio'].map((label) => createAbsolute(`${label} p99 ms`, p99(label), goal)),
      notes: [
        `missed = backend saw no cancel within ${OBSERVE_TIMEOUT_MS} ms; errors = call never started streaming`,
        ...trio.slots.flatMap((slot) => (slot.note === undefined ? [] : [slot.note])),
        ...runs.flatMap((run) => (run.firstError === undefined ? [] : [`${run.label}: ${run.errors} errors, first: ${run.firstError}`])),
        ...runs.filter((run) => !run.target).map((run) => `${run.label}: n/a (${run.reason ?? 'not started'})`)
      ]
    }
  } finally {
    await Promise.all(runs.map((run) => run.pool?.destroy()))
    await trio.stop()
  }
}
