// Scenario 2: `tools/call` with 10 progress notifications streamed over SSE; besides the load
// figures, the transit time of each event from the backend's write to the client's read.
import type { BenchContext } from '../lib/context.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating, type TargetMeasure } from '../lib/load-scenario.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type Cell, type ScenarioReport } from '../lib/report.ts'
import { summarizeNs } from '../lib/stats.ts'
import { PROGRESS_EVENTS } from '../fixtures/catalog.ts'
import { startHttpTrio } from './http-trio.ts'

const COLUMNS = [
  ...LOAD_COLUMNS.slice(0, -1),
  { key: 'eventP50Ms', label: 'event p50 ms', digits: 3 },
  { key: 'eventP99Ms', label: 'event p99 ms', digits: 3 },
  LOAD_COLUMNS[LOAD_COLUMNS.length - 1]
]

function createEventCells(measure: TargetMeasure): Record<string, Cell> {
  if (measure.eventLatenciesNs.length === 0) return { eventP50Ms: null, eventP99Ms: null }
  const events = summarizeNs(measure.eventLatenciesNs)
  return { eventP50Ms: events.p50Ms, eventP99Ms: events.p99Ms }
}

export async function runProgressSse(ctx: BenchContext): Promise<ScenarioReport> {
  const trio = await startHttpTrio(ctx)
  try {
    const plan = createLoadPlan(ctx.options, { expectedNotifications: PROGRESS_EVENTS, trackEventLatency: true })
    const prepare = createCallFactory('progress', true)
    const measures = await runAlternating(ctx, trio.slots.map((slot) => ({ slot, prepare })), plan)
    const rows = measures.map((measure) => ({ ...createLoadRow(ctx, measure), ...createEventCells(measure) }))
    const [direct, bare, gateway] = ['direct', 'bare', 'gateway'].map((name) => findRow(rows, name))
    return {
      id: 2,
      title: `tools/call with ${PROGRESS_EVENTS} progress notifications over SSE, ${plan.connections} connections`,
      columns: COLUMNS,
      rows,
      ratios: [
        createRatio('gateway / bare throughput', gateway.rps ?? null, bare.rps ?? null, { text: '>= 0.9', check: (v) => v >= 0.9 }),
        createRatio('gateway / bare CPU per call', gateway.cpuUsPerReq ?? null, bare.cpuUsPerReq ?? null),
        createRatio('gateway / bare event p99', gateway.eventP99Ms ?? null, bare.eventP99Ms ?? null),
        createRatio('bare / direct throughput', bare.rps ?? null, direct.rps ?? null)
      ],
      notes: [
        'event latency: backend write → client read of each progress event (same monotonic clock), under full load',
        ...describeProblems(measures)
      ]
    }
  } finally {
    await trio.stop()
  }
}
