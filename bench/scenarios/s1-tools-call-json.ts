// Scenario 1: `tools/call` answered as JSON, direct vs bare forwarder (parsed, and raw bytes) vs gateway.
import type { BenchContext } from '../lib/context.ts'
import { createCallFactory, createLoadRow, createMedianRoundRatio, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating } from '../lib/load-scenario.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createAbsolute, createRatio, type ScenarioReport } from '../lib/report.ts'
import { startHttpTrio } from './http-trio.ts'

export async function runToolsCallJson(ctx: BenchContext): Promise<ScenarioReport> {
  const trio = await startHttpTrio(ctx, { withRawBare: true })
  try {
    const plan = createLoadPlan(ctx.options)
    const prepare = createCallFactory('echo', false)
    const measures = await runAlternating(ctx, trio.slots.map((slot) => ({ slot, prepare })), plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [direct, bare, raw, gateway] = ['direct', 'bare', 'bare-raw', 'gateway'].map((name) => findRow(rows, name))
    const [bareMeasure, gatewayMeasure] = ['bare', 'gateway'].map((name) => measures.find((measure) => measure.name === name)!)
    return {
      id: 1,
      title: `tools/call JSON, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('gateway / bare throughput', gateway.rps ?? null, bare.rps ?? null, { text: '>= 0.9', check: (v) => v >= 0.9 }),
        createAbsolute('gateway CPU µs per call', gateway.cpuUsPerReq ?? null, { text: '<= 70', check: (v) => v <= 70 }),
        createRatio('gateway / bare CPU per call', gateway.cpuUsPerReq ?? null, bare.cpuUsPerReq ?? null, { text: '<= 1.15', check: (v) => v <= 1.15 }),
        createMedianRoundRatio('gateway / bare throughput', gatewayMeasure, bareMeasure, 'rps'),
        createMedianRoundRatio('gateway / bare CPU per call', gatewayMeasure, bareMeasure, 'cpuUsPerReq'),
        createRatio('gateway / bare-raw throughput', gateway.rps ?? null, raw.rps ?? null),
        createRatio('gateway / bare-raw CPU per call', gateway.cpuUsPerReq ?? null, raw.cpuUsPerReq ?? null),
        createRatio('bare / direct throughput', bare.rps ?? null, direct.rps ?? null),
        createRatio('gateway / direct p50 latency', gateway.p50Ms ?? null, direct.p50Ms ?? null)
      ],
      notes: [
        'direct: CPU and RSS are the fixture backend\'s own; bare, bare-raw and gateway: the proxy process only (backend excluded)',
        'bare parses the request body and re-serialises it (the speed target\'s baseline); bare-raw passes the raw bytes on',
        ...describeProblems(measures)
      ]
    }
  } finally {
    await trio.stop()
  }
}
