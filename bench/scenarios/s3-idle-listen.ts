// Scenario 3: hold many idle `subscriptions/listen` streams open; RSS per stream, idle CPU, and
// whether every stream still gets its keep-alive comments on time.
import { setTimeout as sleep } from 'node:timers/promises'
import { performance } from 'node:perf_hooks'
import type { BenchContext, Target, TargetSlot } from '../lib/context.ts'
import { closeStreams, measureMaxGapMs, openStreams } from '../lib/listen-streams.ts'
import { createListenPlan, type ListenPlan } from '../lib/plans.ts'
import { createAbsolute, type Cell, type Column, type ScenarioReport } from '../lib/report.ts'
import { percentile } from '../lib/stats.ts'
import { startHttpTrio } from './http-trio.ts'

const SETTLE_MS = 300
const ON_TIME_FACTOR = 1.5

const COLUMNS: Column[] = [
  { key: 'target', label: 'target' },
  { key: 'streams', label: 'streams', digits: 0 },
  { key: 'openS', label: 'open s', digits: 2 },
  { key: 'rssPerStreamKb', label: 'RSS KB/stream', digits: 1 },
  { key: 'idleCpuPct', label: 'idle CPU %', digits: 1 },
  { key: 'clientCpuPct', label: 'client CPU %', digits: 1 },
  { key: 'onTimePct', label: 'keep-alive on time %', digits: 2 },
  { key: 'gapP99Ms', label: 'max gap p99 ms', digits: 0 },
  { key: 'errors', label: 'errors', digits: 0 }
]


function summarizeGaps(gaps: number[], plan: ListenPlan): { onTimePct: number; gapP99Ms: number } {
  const onTime = gaps.filter((gap) => gap <= plan.keepAliveMs * ON_TIME_FACTOR).length
  return { onTimePct: (onTime / plan.streams) * 100, gapP99Ms: percentile(Float64Array.from(gaps).sort(), 0.99) }
}

async function holdStreams(ctx: BenchContext, target: Target, plan: ListenPlan, notes: string[]): Promise<Record<string, Cell>> {
  const pid = target.handle.pid
  await sleep(SETTLE_MS)
  const rssBeforeKb = ctx.proc.memory(pid).rssKb
  const openStartMs = performance.now()
  const opened = await openStreams(target.url.origin, target.url.pathname, plan.streams, plan.openConcurrency)
  try {
    const openS = (performance.now() - openStartMs) / 1000
    if (opened.firstError !== undefined) notes.push(`${target.name}: ${opened.errors} streams failed, first: ${opened.firstError}`)
    await sleep(SETTLE_MS)
    const rssPerStreamKb = opened.streams.length > 0 ? (ctx.proc.memory(pid).rssKb - rssBeforeKb) / opened.streams.length : null
    const cpuBefore = ctx.proc.cpuMicros(pid)
    const clientBefore = process.cpuUsage()
    const holdStartMs = performance.now()
    await sleep(plan.holdMs)
    const holdEndMs = performance.now()
    const holdMicros = (holdEndMs - holdStartMs) * 1000
    const idleCpuPct = ((ctx.proc.cpuMicros(pid) - cpuBefore) / holdMicros) * 100
    const clientUsage = process.cpuUsage(clientBefore)
    const clientCpuPct = ((clientUsage.user + clientUsage.system) / holdMicros) * 100
    const gaps = opened.streams.map((stream) => measureMaxGapMs(stream, holdStartMs, holdEndMs))
    const gapCells = summarizeGaps(gaps, plan)
    return { target: target.name, streams: opened.streams.length, openS, rssPerStreamKb, idleCpuPct, clientCpuPct, ...gapCells, errors: opened.errors }
  } finally {
    await closeStreams(opened.streams)
  }
}

async function measureSlot(ctx: BenchContext, slot: TargetSlot, plan: ListenPlan, notes: string[]): Promise<Record<string, Cell>> {
  if (!slot.target) {
    notes.push(`${slot.name}: n/a (${slot.reason ?? 'not started'})`)
    return Object.fromEntries(COLUMNS.map((column) => [column.key, column.key === 'target' ? slot.name : null]))
  }
  return holdStreams(ctx, slot.target, plan, notes)
}

export async function runIdleListen(ctx: BenchContext): Promise<ScenarioReport> {
  const plan = createListenPlan(ctx.options)
  const trio = await startHttpTrio(ctx, { keepAliveMs: plan.keepAliveMs, withBare: false, gatewaySettings: { keepAliveMs: plan.keepAliveMs } })
  const notes = [
    `keep-alive interval ${plan.keepAliveMs} ms (gateway config keepAliveMs), held ${plan.holdMs} ms; ` +
      `on time = longest wait <= ${ON_TIME_FACTOR}× interval`,
    'direct: the fixture backend holding the streams itself; no bare forwarder here (it would hold 2 sockets per stream and sends no keep-alives)',
    'RSS KB/stream: RSS growth after opening, without a forced GC; ' +
      'client CPU % near 100 means the load generator, not the target, limits the keep-alive timing'
  ]
  try {
    const rows: Record<string, Cell>[] = []
    for (const slot of trio.slots) {
      if (slot.note !== undefined) notes.push(slot.note)
      rows.push(await measureSlot(ctx, slot, plan, notes))
    }
    const gateway = rows.find((row) => row.target === 'gateway') ?? {}
    return {
      id: 3,
      title: `${plan.streams.toLocaleString('en-US')} idle subscriptions/listen streams`,
      columns: COLUMNS,
      rows,
      ratios: [
        createAbsolute('gateway RSS KB per stream', gateway.rssPerStreamKb ?? null, { text: '<= 20', check: (v) => v <= 20 }),
        createAbsolute('gateway streams with keep-alives on time %', gateway.onTimePct ?? null, { text: '= 100', check: (v) => v >= 100 })
      ],
      notes
    }
  } finally {
    await trio.stop()
  }
}
