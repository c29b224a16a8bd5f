// Scenario 10: `tools/call` answered as JSON through three gateways on one backend: tracing off
// (no trace context), tracing off with a W3C `traceparent` on every request (passed on to the
// backend), and OpenTelemetry on (a server and a client span per call, exported over OTLP/HTTP to a
// local sink): what tracing costs per call (README "Tracing").
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating, type LoadTarget } from '../lib/load-scenario.ts'
import { startOtlpSink } from '../lib/otlp-sink.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'

const PASS_ON = 'gateway+traceparent'
const TRACED = 'gateway+otel'

function rename(slot: TargetSlot, name: string): TargetSlot {
  return slot.target ? { ...slot, name, target: { ...slot.target, name } } : { ...slot, name }
}

// A fresh trace id per request, as an instrumented client would send.
function withTraceparent(): LoadTarget['prepare'] {
  const plain = createCallFactory('echo', false)
  return async (pool, target: Target) => {
    const next = await plain(pool, target)
    let n = 0
    return () => {
      const request = next()
      request.headers.traceparent = `00-${(++n).toString(16).padStart(32, 'a')}-00f067aa0ba902b7-01`
      return request
    }
  }
}

export async function runToolsCallTraced(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  const sink = await startOtlpSink()
  const started: TargetSlot[] = []
  try {
    const backends = [createHttpEntry('b1', backend.url)]
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' }
    started.push(await startGateway(ctx, { backends }))
    started.push(rename(await startGateway(ctx, { backends }), PASS_ON))
    started.push(rename(await startGateway(ctx, { backends, env: otel }), TRACED))
    const plan = createLoadPlan(ctx.options)
    const entries: LoadTarget[] = [
      { slot: started[0], prepare: createCallFactory('echo', false) },
      { slot: started[1], prepare: withTraceparent() },
      { slot: started[2], prepare: withTraceparent() },
    ]
    const measures = await runAlternating(ctx, entries, plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [off, passOn, traced] = ['gateway', PASS_ON, TRACED].map((name) => findRow(rows, name))
    return {
      id: 10,
      title: `tools/call JSON, tracing off / on, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('traceparent passed on / off CPU per call', passOn.cpuUsPerReq ?? null, off.cpuUsPerReq ?? null, { text: '<= 1.05', check: (v) => v <= 1.05 }),
        createRatio('otel on / off CPU per call', traced.cpuUsPerReq ?? null, off.cpuUsPerReq ?? null, { text: '<= 1.2', check: (v) => v <= 1.2 }),
        createRatio('otel on / off throughput', traced.rps ?? null, off.rps ?? null),
        createRatio('otel on / off p50 latency', traced.p50Ms ?? null, off.p50Ms ?? null),
      ],
      notes: [
        'three gateways on the same HTTP fixture backend; "otel" exports every span (2 per call) to an OTLP/HTTP JSON sink in the harness',
        `the sink received ${sink.exports()} export requests`,
        ...describeProblems(measures),
      ],
    }
  } finally {
    await Promise.all([backend.handle.stop(), sink.stop(), ...started.map((slot) => slot.target?.handle.stop())])
  }
}
