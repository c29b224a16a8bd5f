// Scenario 10: `tools/call` answered as JSON through three gateways on one backend: tracing off,
// spans only (a server and a client span per call, OTEL_METRICS_EXPORTER=none), and OpenTelemetry
// with the SDK's defaults (the spans and the two duration metrics), each exporting over OTLP/HTTP
// to a local sink: what tracing costs per call (README "Tracing"). The tracing-off gateway is
// loaded in rounds of its own twice: without trace context, and with a W3C `traceparent` on every
// request (passed on to the backend). Both loads on one process: the two differ only in what the
// requests carry, and two processes running the same code differ by up to 6 % side by side on
// this project's VM. The sink counts the spans it got: every one must arrive.
import { Client } from 'undici'
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, createMedianRoundRatio, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating, type LoadTarget } from '../lib/load-scenario.ts'
import { startOtlpSink } from '../lib/otlp-sink.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'

const PASS_ON = 'gateway+traceparent'
const SPANS = 'gateway+spans'
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

// tools/call requests the gateway served (warm-up included), from its /metrics.
async function servedCalls(target: Target | undefined): Promise<number> {
  if (target === undefined) return 0
  const client = new Client(target.url.origin)
  try {
    const res = await client.request({ path: '/metrics', method: 'GET' })
    const lines = (await res.body.text()).split('\n').filter((line) => line.startsWith('mcp_gateway_requests_total{') && line.includes('method="tools/call"'))
    return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
  } finally {
    await client.close()
  }
}

export async function runToolsCallTraced(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  const sink = await startOtlpSink(ctx)
  const started: TargetSlot[] = []
  try {
    const backends = [createHttpEntry('b1', backend.url)]
    // Nothing but the endpoint: the SDK's defaults (batches of 512 spans, metrics every 60 s).
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint }
    started.push(await startGateway(ctx, { backends }))
    started.push(rename(await startGateway(ctx, { backends, env: { ...otel, OTEL_METRICS_EXPORTER: 'none' } }), SPANS))
    started.push(rename(await startGateway(ctx, { backends, env: otel }), TRACED))
    const plan = createLoadPlan(ctx.options)
    const entries: LoadTarget[] = [
      { slot: started[0], prepare: createCallFactory('echo', false) },
      { slot: rename(started[0], PASS_ON), prepare: withTraceparent() },
      { slot: started[1], prepare: withTraceparent() },
      { slot: started[2], prepare: withTraceparent() },
    ]
    const measures = await runAlternating(ctx, entries, plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [off, passOn, spans, traced] = ['gateway', PASS_ON, SPANS, TRACED].map((name) => findRow(rows, name))
    const measured = (name: string) => measures.find((measure) => measure.name === name)!
    const calls = (await servedCalls(started[1].target)) + (await servedCalls(started[2].target))
    // Stopped before the sink: what is still queued is exported at shutdown.
    await Promise.all(started.splice(0).map((slot) => slot.target?.handle.stop()))
    const received = await sink.counts()
    return {
      id: 10,
      title: `tools/call JSON, tracing off / on, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('traceparent passed on / off CPU per call', passOn.cpuUsPerReq ?? null, off.cpuUsPerReq ?? null, { text: '<= 1.05', check: (v) => v <= 1.05 }),
        createRatio('spans on / off CPU per call', spans.cpuUsPerReq ?? null, off.cpuUsPerReq ?? null, { text: '<= 1.2', check: (v) => v <= 1.2 }),
        createMedianRoundRatio('traceparent passed on / off CPU per call', measured(PASS_ON), measured('gateway'), 'cpuUsPerReq'),
        createMedianRoundRatio('spans on / off CPU per call', measured(SPANS), measured('gateway'), 'cpuUsPerReq'),
        createRatio('spans and metrics (SDK defaults) / off CPU per call', traced.cpuUsPerReq ?? null, off.cpuUsPerReq ?? null),
        createRatio('otel on / off throughput', traced.rps ?? null, off.rps ?? null),
        createRatio('otel on / off p50 latency', traced.p50Ms ?? null, off.p50Ms ?? null),
      ],
      notes: [
        'three gateways on the same HTTP fixture backend ("gateway+traceparent" is the tracing-off gateway, loaded with a traceparent on every request); "spans" exports every span (2 per call), "otel" the spans and the two duration metrics, to an OTLP/HTTP (protobuf) sink in a process of its own',
        `the sink received ${received.exports} trace exports holding ${received.spans} spans for ${calls} calls (${2 * calls} expected), and ${received.metricExports} metrics exports`,
        ...describeProblems(measures),
      ],
    }
  } finally {
    await Promise.all([backend.handle.stop(), sink.stop(), ...started.map((slot) => slot.target?.handle.stop())])
  }
}
