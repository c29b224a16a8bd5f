// Scenario 6: cold start, from process spawn to ready. The gateway fronts 3 backends (2 HTTP, 1
// stdio) and is ready when GET /readyz answers 200; the others when they accept (peers) or print
// their listening line (fixtures). Targets alternate within each repeat.
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { startBareForwarder, startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, createStdioEntry, startGateway } from '../lib/gateway-target.ts'
import { startPeer } from '../lib/peer-targets.ts'
import { createColdStartRepeats } from '../lib/plans.ts'
import { createRatio, type Cell, type Column, type ScenarioReport } from '../lib/report.ts'
import { summarizeNs } from '../lib/stats.ts'

const NS_PER_MS = 1_000_000
const KB_PER_MB = 1024

interface Contender {
  name: string
  start(): Promise<TargetSlot>
  readyNs: number[]
  rssKb: number[]
  reason?: string
}

const COLUMNS: Column[] = [
  { key: 'target', label: 'target' },
  { key: 'p50Ms', label: 'ready p50 ms', digits: 1 },
  { key: 'minMs', label: 'min ms', digits: 1 },
  { key: 'maxMs', label: 'max ms', digits: 1 },
  { key: 'rssMb', label: 'RSS at ready MB', digits: 1 }
]

function createContenders(ctx: BenchContext, upstreams: Target[]): Contender[] {
  const [first, second] = upstreams
  const backends = [createHttpEntry('b1', first.url, 'a'), createHttpEntry('b2', second.url, 'b'), createStdioEntry(ctx, 's1', 'c')]
  const wrap = (name: string, start: () => Promise<TargetSlot>): Contender => ({ name, start, readyNs: [], rssKb: [] })
  const slotOf = async (name: string, target: Promise<Target>): Promise<TargetSlot> => ({ name, target: await target })
  return [
    wrap('gateway (3 backends)', () => startGateway(ctx, { backends })),
    wrap('bare', () => slotOf('bare', startBareForwarder(ctx, first.url))),
    wrap('node:http fixture', () => slotOf('node:http fixture', startHttpBackend(ctx, { name: 'cold-backend' }))),
    wrap('supergateway', () => startPeer(ctx, 'supergateway')),
    wrap('mcp-proxy', () => startPeer(ctx, 'mcp-proxy'))
  ]
}

async function startOnce(ctx: BenchContext, contender: Contender): Promise<void> {
  if (contender.reason !== undefined) return
  const slot = await contender.start().catch((err: unknown) => ({ name: contender.name, target: undefined, reason: String(err) }))
  if (!slot.target) {
    contender.reason = slot.reason ?? 'not started'
    return
  }
  contender.readyNs.push(slot.target.readyMs * NS_PER_MS)
  try {
    contender.rssKb.push(ctx.proc.memory(slot.target.handle.pid).rssKb)
  } finally {
    await slot.target.handle.stop()
  }
}

function createRow(contender: Contender): Record<string, Cell> {
  if (contender.readyNs.length === 0) return { target: contender.name, p50Ms: null, minMs: null, maxMs: null, rssMb: null }
  const ready = summarizeNs(Float64Array.from(contender.readyNs))
  const sorted = [...contender.readyNs].sort((a, b) => a - b)
  const rssMb = contender.rssKb.reduce((sum, kb) => sum + kb, 0) / contender.rssKb.length / KB_PER_MB
  return { target: contender.name, p50Ms: ready.p50Ms, minMs: sorted[0] / NS_PER_MS, maxMs: ready.maxMs, rssMb }
}

export async function runColdStart(ctx: BenchContext): Promise<ScenarioReport> {
  const repeats = createColdStartRepeats(ctx.options)
  const upstreams = [await startHttpBackend(ctx, { name: 'upstream-1' }), await startHttpBackend(ctx, { name: 'upstream-2' })]
  try {
    const contenders = createContenders(ctx, upstreams)
    for (let i = 0; i < repeats; i++) {
      for (let j = 0; j < contenders.length; j++) await startOnce(ctx, contenders[(i + j) % contenders.length])
    }
    const rows = contenders.map(createRow)
    const p50 = (name: string): Cell => rows.find((row) => row.target === name)?.p50Ms ?? null
    return {
      id: 6,
      title: `cold start: spawn → ready (${repeats} starts each)`,
      columns: COLUMNS,
      rows,
      ratios: [
        createRatio('gateway / bare ready time', p50('gateway (3 backends)'), p50('bare')),
        createRatio('gateway / mcp-proxy ready time', p50('gateway (3 backends)'), p50('mcp-proxy'))
      ],
      notes: [
        'gateway ready = GET /readyz 200 with 2 HTTP backends and 1 stdio backend; mcp-proxy ready includes its stdio handshake; ' +
          'supergateway spawns its child per session, so only its listener counts',
        ...contenders.filter((c) => c.reason !== undefined).map((c) => `${c.name}: n/a (${c.reason})`)
      ]
    }
  } finally {
    await Promise.all(upstreams.map((target) => target.handle.stop()))
  }
}
