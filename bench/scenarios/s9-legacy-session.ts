// Scenario 9: `tools/call` answered as JSON through one gateway, by a 2026-07-28 client (stateless,
// `_meta` on every request) and by a 2025-11-25 client (initialize once, then every call with
// Mcp-Session-Id): what the legacy path costs per call. Same gateway process, same HTTP fixture
// backend, same load; the rounds alternate, so each window's CPU belongs to one era.
import type { BenchContext, TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating } from '../lib/load-scenario.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'

const LEGACY = 'gateway 2025-11-25'

// The same gateway process, driven as one shared 2025-11-25 session.
function asLegacySession(slot: TargetSlot): TargetSlot {
  return slot.target ? { ...slot, name: LEGACY, target: { ...slot.target, name: LEGACY, protocol: 'legacy-session' } } : { ...slot, name: LEGACY }
}

export async function runLegacySession(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  let gateway: TargetSlot | undefined
  try {
    gateway = await startGateway(ctx, { backends: [createHttpEntry('b1', backend.url)] })
    // Both eras on one process: short rounds, many of them, so that the machine's other load
    // falls on both alike (same measured time as scenario 1).
    const plan = createLoadPlan(ctx.options, ctx.options.quick ? {} : { rounds: 8, durationMs: 1_500, warmupMs: 200 })
    const prepare = createCallFactory('echo', false)
    const measures = await runAlternating(ctx, [{ slot: gateway, prepare }, { slot: asLegacySession(gateway), prepare }], plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [modern, legacy] = ['gateway', LEGACY].map((name) => findRow(rows, name))
    return {
      id: 9,
      title: `tools/call JSON, 2025-11-25 session vs 2026-07-28, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per era`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('legacy / modern CPU per call', legacy.cpuUsPerReq ?? null, modern.cpuUsPerReq ?? null, { text: '<= 1.1', check: (v) => v <= 1.1 }),
        createRatio('legacy / modern throughput', legacy.rps ?? null, modern.rps ?? null),
        createRatio('legacy / modern p50 latency', legacy.p50Ms ?? null, modern.p50Ms ?? null),
      ],
      notes: ['one gateway process in front of the HTTP fixture backend; the 2025-11-25 rows are one session shared by every connection', ...describeProblems(measures)],
    }
  } finally {
    await Promise.all([backend.handle.stop(), gateway?.target?.handle.stop()])
  }
}
