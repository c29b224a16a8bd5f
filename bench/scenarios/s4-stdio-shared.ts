// Scenario 4: one stdio backend shared by 64 concurrent clients, through the gateway and through
// the SDK-based peers (supergateway, mcp-proxy; pinned, fetched with npm exec) in front of the
// same stdio server. supergateway spawns a child per session, so its clients share one session.
import type { BenchContext, TargetSlot } from '../lib/context.ts'
import { createStdioEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating } from '../lib/load-scenario.ts'
import { startPeer } from '../lib/peer-targets.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createAbsolute, createRatio, type ScenarioReport } from '../lib/report.ts'
import { PEERS } from '../lib/context.ts'

const CLIENTS = 64
const atLeastFour = { text: '>= 4', check: (v: number) => v >= 4 }

async function startTargets(ctx: BenchContext): Promise<TargetSlot[]> {
  const gateway = await startGateway(ctx, { backends: [createStdioEntry(ctx, 's1')] })
  const supergateway = await startPeer(ctx, 'supergateway')
  const mcpProxy = await startPeer(ctx, 'mcp-proxy')
  return [gateway, supergateway, mcpProxy]
}

export async function runStdioShared(ctx: BenchContext): Promise<ScenarioReport> {
  const slots = await startTargets(ctx)
  try {
    const plan = createLoadPlan(ctx.options, { connections: CLIENTS })
    const prepare = createCallFactory('stdio_echo', false)
    const measures = await runAlternating(ctx, slots.map((slot) => ({ slot, prepare })), plan)
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [gateway, supergateway, mcpProxy] = ['gateway', 'supergateway', 'mcp-proxy'].map((name) => findRow(rows, name))
    return {
      id: 4,
      title: `one stdio backend shared by ${CLIENTS} concurrent clients`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('supergateway / gateway CPU per call', supergateway.cpuUsPerReq ?? null, gateway.cpuUsPerReq ?? null, atLeastFour),
        createRatio('mcp-proxy / gateway CPU per call', mcpProxy.cpuUsPerReq ?? null, gateway.cpuUsPerReq ?? null, atLeastFour),
        createAbsolute('gateway CPU µs per call', gateway.cpuUsPerReq ?? null, { text: '<= 70', check: (v) => v <= 70 }),
        createRatio('gateway / supergateway throughput', gateway.rps ?? null, supergateway.rps ?? null),
        createRatio('gateway / mcp-proxy throughput', gateway.rps ?? null, mcpProxy.rps ?? null)
      ],
      notes: [
        `peers: supergateway@${PEERS.supergateway.version} (--stateful, --logLevel none, one shared 2025-11-25 session), ` +
          `mcp-proxy@${PEERS['mcp-proxy'].version} (--no-eventStore, 2026-07-28 requests)`,
        'CPU is the proxy process only; the stdio backend child is not counted',
        ...describeProblems(measures)
      ]
    }
  } finally {
    await Promise.all(slots.map((slot) => slot.target?.handle.stop()))
  }
}
