// Scenario 12: three gateway replicas behind nginx (deploy/nginx.conf, round robin, no affinity)
// sharing one Redis, against one replica alone: `tools/call` JSON with a rate limit on (the one
// Redis round trip of the plain path: the shared bucket). Throughput per replica and gateway CPU
// per call are compared, and Redis commands per request are read from the replicas' own counters.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from 'undici'
import { nginxConfig } from '../../test/helpers/nginx.ts'
import { findFreePort } from '../../test/helpers/ports.ts'
import { createChildEnv, type BenchContext, type Target, type TargetSlot } from '../lib/context.ts'
import { startHttpBackend } from '../lib/fixture-targets.ts'
import { createHttpEntry, startGateway } from '../lib/gateway-target.ts'
import { createCallFactory, createLoadRow, describeProblems, findRow, LOAD_COLUMNS } from '../lib/load-rows.ts'
import { runAlternating } from '../lib/load-scenario.ts'
import { assertLoopbackUrl } from '../lib/loopback-guard.ts'
import { createLoadPlan } from '../lib/plans.ts'
import { createRatio, type ScenarioReport } from '../lib/report.ts'

const REPLICAS = 3
const TRIO = '3 replicas+nginx'
const SECRET = 'bench-replicas-share-this-secret-0123456789'
// High enough never to refuse: the limit is on for its cost, not for its refusals.
const RATE_LIMIT = { requestsPerMinute: 10_000_000, burst: 1_000_000 }

async function startRedis(ctx: BenchContext): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await findFreePort()
  const { handle } = await ctx.group.spawn({
    name: 'redis', command: 'redis-server', args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    env: createChildEnv({}), readyTimeoutMs: 10_000,
    matchReady: (line) => (line.includes('Ready to accept connections') ? 'ready' : undefined),
  })
  return { url: `redis://127.0.0.1:${port}`, stop: () => handle.stop() }
}

async function startNginx(ctx: BenchContext, upstreams: string[]): Promise<{ url: URL; pids: number[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(ctx.tmpDir, 'nginx-'))
  const port = await findFreePort()
  const conf = join(dir, 'nginx.conf')
  writeFileSync(conf, nginxConfig(dir, port, upstreams))
  const origin = `http://127.0.0.1:${port}`
  const { handle } = await ctx.group.spawn({
    name: 'nginx', command: 'nginx', args: ['-p', dir, '-c', conf, '-g', 'daemon off;'], env: createChildEnv({}), readyTimeoutMs: 10_000,
    probeReady: async () => {
      const client = new Client(origin)
      try {
        const res = await client.request({ path: '/nginx-health', method: 'GET' })
        await res.body.dump()
        return res.statusCode === 200 ? origin : undefined
      } catch {
        return undefined
      } finally {
        await client.close()
      }
    },
  })
  // The master does no proxying: its workers (its children) are measured.
  const workers = readFileSync(`/proc/${handle.pid}/task/${handle.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return { url: new URL('/mcp', assertLoopbackUrl(origin)), pids: [handle.pid, ...workers], stop: () => handle.stop() }
}

// Sum over the replicas of a counter (all label sets), from their /metrics.
async function sumCounter(targets: Target[], name: string, label = ''): Promise<number> {
  let sum = 0
  for (const target of targets) {
    const client = new Client(target.url.origin)
    try {
      const res = await client.request({ path: '/metrics', method: 'GET' })
      for (const line of (await res.body.text()).split('\n')) {
        if (line.startsWith(`${name}{`) && line.includes(label)) sum += Number(line.slice(line.lastIndexOf(' ') + 1))
      }
    } finally {
      await client.close()
    }
  }
  return sum
}

export async function runReplicas(ctx: BenchContext): Promise<ScenarioReport> {
  const backend = await startHttpBackend(ctx)
  const stops: Array<() => Promise<void>> = [() => backend.handle.stop()]
  try {
    const redis = await startRedis(ctx)
    stops.push(redis.stop)
    const backends = [createHttpEntry('b1', backend.url)]
    const single = await startGateway(ctx, { backends, settings: { rateLimit: RATE_LIMIT, stateSecret: SECRET } })
    // One after another: four starting at once on a busy 2-core machine miss the start timeout.
    const replicas: TargetSlot[] = []
    for (let i = 0; i < REPLICAS; i++) replicas.push(await startGateway(ctx, { backends, settings: { rateLimit: RATE_LIMIT, stateSecret: SECRET, redisUrl: redis.url } }))
    for (const slot of [single, ...replicas]) stops.push(async () => slot.target?.handle.stop())
    const up = replicas.map((slot) => slot.target).filter((target): target is Target => target !== undefined)
    if (single.target === undefined || up.length < REPLICAS) throw new Error(`a gateway did not start: ${[single, ...replicas].map((s) => s.reason).filter(Boolean).join('; ')}`)
    const nginx = await startNginx(ctx, up.map((target) => target.url.host))
    stops.push(nginx.stop)
    // The trio's CPU is its three gateways' (nginx's is reported on its own).
    const trio: TargetSlot = { name: TRIO, target: { ...up[0], name: TRIO, url: nginx.url, measuredPids: up.map((target) => target.handle.pid) } }
    const counters = async () => ({
      commands: await sumCounter(up, 'mcp_gateway_redis_commands_total'),
      rateLimit: await sumCounter(up, 'mcp_gateway_redis_commands_total', 'op="rate_limit"'),
      requests: await sumCounter(up, 'mcp_gateway_requests_total'),
    })
    const before = await counters()
    const nginxCpu = (): number => nginx.pids.reduce((sum, pid) => sum + ctx.proc.cpuMicros(pid), 0)
    const nginxBefore = nginxCpu()
    const plan = createLoadPlan(ctx.options)
    const measures = await runAlternating(ctx, [{ slot: single, prepare: createCallFactory('echo', false) }, { slot: trio, prepare: createCallFactory('echo', false) }], plan)
    const after = await counters()
    const [commands, rateLimitCommands, requests] = [after.commands - before.commands, after.rateLimit - before.rateLimit, after.requests - before.requests]
    const rows = measures.map((measure) => createLoadRow(ctx, measure))
    const [one, three] = [findRow(rows, 'gateway'), findRow(rows, TRIO)]
    const perReplica = typeof three.rps === 'number' ? three.rps / REPLICAS : null
    const trioMeasure = measures.find((m) => m.name === TRIO)
    const nginxUs = trioMeasure && trioMeasure.completed > 0 ? (nginxCpu() - nginxBefore) / trioMeasure.completed : null
    return {
      id: 12,
      title: `${REPLICAS} gateway replicas behind nginx with Redis vs 1 replica: tools/call JSON, rate limit on, ${plan.connections} connections, ${plan.rounds}×${plan.durationMs} ms per target`,
      columns: LOAD_COLUMNS,
      rows,
      ratios: [
        createRatio('throughput per replica (3 behind nginx) / single replica', perReplica, one.rps ?? null, { text: '>= 0.9 (needs a core per replica)', check: (v) => v >= 0.9 }),
        createRatio('total throughput (3 behind nginx) / single replica', three.rps ?? null, one.rps ?? null),
        createRatio('gateway CPU per call (3 replicas) / single', three.cpuUsPerReq ?? null, one.cpuUsPerReq ?? null, { text: '<= 1.1', check: (v) => v <= 1.1 }),
        createRatio('Redis commands per request (all uses)', commands, requests),
        createRatio('Redis commands per request other than the rate limit', commands - rateLimitCommands, requests),
      ],
      notes: [
        `nginx CPU per call: ${nginxUs === null ? 'n/a' : nginxUs.toFixed(1)} µs (not in the gateway CPU column)`,
        'Redis commands other than the rate limit: each replica\'s liveness key (one SET per 5 s), not per request',
        'every process (load generator, backend, nginx, Redis, 4 gateways) shares the same cores: on 2 cores, 3 replicas cannot each get a core',
        ...describeProblems(measures),
      ],
    }
  } finally {
    await Promise.all(stops.map((stop) => stop().catch(() => undefined)))
  }
}
