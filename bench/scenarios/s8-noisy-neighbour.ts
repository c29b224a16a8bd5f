// Scenario 8: noisy neighbour. A victim client (source address 127.0.0.1) calls `echo` in a closed
// loop through the gateway, alone and then beside one flooding client (127.0.0.2) that keeps 64,
// then 640, `sleep` calls open (each held by the backend for up to 10 s). The gateway's per-client
// limit, fair queue and queue timeout (README "Limits") must keep the victim's latency where it
// was: target p99 < 1 s while flooded. Before them, the victim's call waited 19 s (640: 59 s).
import { setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import type { BenchContext, Target } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { runLoad } from '../lib/load-generator.ts'
import { createModernToolCall } from '../lib/mcp-messages.ts'
import { createAbsolute, createRatio, type Cell, type Column, type ScenarioReport } from '../lib/report.ts'
import { exchange, isResult } from '../lib/rpc-exchange.ts'
import { summarizeNs } from '../lib/stats.ts'

const VICTIM = '127.0.0.1'
const FLOODER = '127.0.0.2'
const VICTIM_CONNECTIONS = 4
const FLOODS = [0, 64, 640] as const
// A refused flood call is retried after this pause, so the harness's own CPU (shared with the
// victim's client) is not spent spinning on refusals.
const REFUSED_RETRY_MS = 50
const MAX_VICTIM_REQUESTS = 200_000

const COLUMNS: Column[] = [
  { key: 'run', label: 'run' },
  { key: 'calls', label: 'victim calls', digits: 0 },
  { key: 'p50Ms', label: 'victim p50 ms', digits: 3 },
  { key: 'p99Ms', label: 'victim p99 ms', digits: 3 },
  { key: 'maxMs', label: 'victim max ms', digits: 1 },
  { key: 'errors', label: 'victim errors', digits: 0 },
  { key: 'refused', label: 'flood refused', digits: 0 },
]

interface Flood {
  refused: number
  stop(): Promise<void>
}

// `size` workers, each keeping one held `sleep` call open, again and again, until stopped; the
// pool is destroyed at the end, which cancels the calls still held.
function startFlood(gateway: Target, size: number): Flood {
  const pool = new Pool(gateway.url.origin, { connections: size, localAddress: FLOODER, headersTimeout: 0, bodyTimeout: 0 })
  const state = { stopped: false, refused: 0, id: 0 }
  const worker = async (): Promise<void> => {
    while (!state.stopped) {
      const request = createModernToolCall({ id: ++state.id, tool: 'sleep', args: { key: `flood-${state.id}` } })
      const result = await exchange(pool, { path: gateway.url.pathname, request }).catch(() => undefined)
      if (!state.stopped && (result === undefined || !isResult(result))) {
        state.refused++
        await sleep(REFUSED_RETRY_MS)
      }
    }
  }
  const workers = Array.from({ length: size }, () => worker())
  return {
    get refused() { return state.refused },
    async stop() {
      state.stopped = true
      await pool.destroy()
      await Promise.all(workers)
    },
  }
}

async function measureVictim(ctx: BenchContext, gateway: Target, durationMs: number): Promise<Record<string, Cell>> {
  const pool = new Pool(gateway.url.origin, { connections: VICTIM_CONNECTIONS, localAddress: VICTIM })
  try {
    let id = 0
    const createRequest = () => createModernToolCall({ id: ++id, tool: 'echo', args: { text: 'victim' } })
    const spec = { dispatcher: pool, path: gateway.url.pathname, connections: VICTIM_CONNECTIONS, createRequest, expectedNotifications: 0 }
    await runLoad({ ...spec, maxRequests: MAX_VICTIM_REQUESTS, durationMs: ctx.options.quick ? 200 : 500 })
    const result = await runLoad({ ...spec, maxRequests: MAX_VICTIM_REQUESTS, durationMs })
    const latency = summarizeNs(result.latenciesNs)
    return { calls: result.completed, p50Ms: latency.p50Ms, p99Ms: latency.p99Ms, maxMs: latency.maxMs, errors: result.errors }
  } finally {
    await pool.close()
  }
}

async function measureRun(ctx: BenchContext, gateway: Target, floodSize: number): Promise<Record<string, Cell>> {
  const durationMs = ctx.options.quick ? 1_500 : 4_000
  if (floodSize === 0) return { run: 'victim alone', ...(await measureVictim(ctx, gateway, durationMs)), refused: null }
  const flood = startFlood(gateway, floodSize)
  try {
    // Let the flood fill its slots and the queue before the victim is measured.
    await sleep(ctx.options.quick ? 300 : 1_000)
    const row = await measureVictim(ctx, gateway, durationMs)
    return { run: `+ 1 client flooding ${floodSize} held calls`, ...row, refused: flood.refused }
  } finally {
    await flood.stop()
  }
}

export async function runNoisyNeighbour(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  try {
    const slot = await startGateway(ctx, { backends: [createHttpEntry('b1', backend.url)] })
    if (!slot.target) throw new Error(slot.reason ?? 'gateway did not start')
    const rows: Record<string, Cell>[] = []
    try {
      for (const size of FLOODS) rows.push(await measureRun(ctx, slot.target, size))
    } finally {
      await slot.target.handle.stop()
    }
    const [quiet, flood64, flood640] = rows
    return {
      id: 8,
      title: `noisy neighbour: victim ${VICTIM} (${VICTIM_CONNECTIONS} connections, echo) beside one flooding client ${FLOODER} (held sleep calls)`,
      columns: COLUMNS,
      rows,
      ratios: [
        createAbsolute('victim p99 ms, 640 held calls flooding', flood640.p99Ms ?? null, { text: '< 1000', check: (v) => v < 1_000 }),
        createAbsolute('victim p99 ms, 64 held calls flooding', flood64.p99Ms ?? null, { text: '< 1000', check: (v) => v < 1_000 }),
        createRatio('victim p99 flooded (640) / alone', flood640.p99Ms ?? null, quiet.p99Ms ?? null),
        createRatio('victim p50 flooded (640) / alone', flood640.p50Ms ?? null, quiet.p50Ms ?? null),
      ],
      notes: [
        'gateway defaults: 64 connections to the backend, limits.callsPerClient 16, limits.queuedCalls 256, limits.queueTimeoutMs 10 s',
        `flood refused: calls the gateway refused (queue full) or timed out in its queue; each retried after ${REFUSED_RETRY_MS} ms`,
      ],
    }
  } finally {
    await backend.handle.stop()
  }
}
