// Scenario 11: `tools/call` answered as JSON through the gateway over plain HTTP, HTTPS/1.1 and h2
// (TLS, ALPN): what TLS and HTTP/2 cost per call. Same backend, same load; over h2 the client's
// concurrent calls share one connection as streams (undici allowH2), as an h2 client's would.
import type { BenchContext, TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating, type LoadTarget } from '../lib/load-scenario.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'
import { createTestCa, hasOpenssl } from '../../test/helpers/test-pki.ts'

function rename(slot: TargetSlot, name: string): TargetSlot {
  return slot.target ? { ...slot, name, target: { ...slot.target, name } } : { ...slot, name }
}

const NAMES = ['gateway http', 'gateway https/1.1', 'gateway h2'] as const

export async function runToolsCallTls(ctx: BenchContext): Promise<ScenarioReport> {
  if (!hasOpenssl()) throw new Error('openssl not found (apt-get install -y openssl): the certificates are made with it')
  const cleanups: Array<() => void> = []
  const ca = createTestCa({ teardown: (fn) => void cleanups.push(() => void fn()) })
  const cert = ca.issue('bench-gateway')
  const tls = { certFile: cert.certFile, keyFile: cert.keyFile }
  const backend = await startHttpBackend(ctx)
  const started: TargetSlot[] = []
  try {
    const backends = [createHttpEntry('b1', backend.url)]
    started.push(rename(await startGateway(ctx, { backends }), NAMES[0]))
    started.push(rename(await startGateway(ctx, { backends, settings: { tls, http2: 'off' }, ca: ca.cert }), NAMES[1]))
    started.push(rename(await startGateway(ctx, { backends, settings: { tls, http2: 'alpn' }, ca: ca.cert }), NAMES[2]))
    const plan = createLoadPlan(ctx.options)
    const prepare = createCallFactory('echo', false)
    const entries: LoadTarget[] = [
      { slot: started[0], prepare },
      { slot: started[1], prepare, poolOptions: { connect: { ca: ca.cert }, allowH2: false } },
      { slot: started[2], prepare, poolOptions: { connect: { ca: ca.cert }, allowH2: true } },
    ]
    const measures = await runAlternating(ctx, entries, plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [http, https1, h2] = NAMES.map((name) => findRow(rows, name))
    return {
      id: 11,
      title: `tools/call JSON over HTTP, HTTPS/1.1 and h2, ${plan.connections} concurrent calls, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('https/1.1 / http CPU per call', https1.cpuUsPerReq ?? null, http.cpuUsPerReq ?? null),
        createRatio('h2 / http CPU per call', h2.cpuUsPerReq ?? null, http.cpuUsPerReq ?? null),
        createRatio('https/1.1 / http throughput', https1.rps ?? null, http.rps ?? null),
        createRatio('h2 / http throughput', h2.rps ?? null, http.rps ?? null),
        createRatio('h2 / http p50 latency', h2.p50Ms ?? null, http.p50Ms ?? null),
      ],
      notes: [
        'one gateway process per row, the same HTTP fixture backend behind each; TLS 1.3 with a P-256 certificate; CPU is the gateway process\'s own',
        `h2: the ${plan.connections} concurrent calls are streams of the client's h2 connection(s), not ${plan.connections} connections`,
        ...describeProblems(measures),
      ],
    }
  } finally {
    await Promise.all([backend.handle.stop(), ...started.map((slot) => slot.target?.handle.stop())])
    for (const cleanup of cleanups) cleanup()
  }
}
