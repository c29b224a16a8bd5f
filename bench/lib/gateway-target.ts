// Starts the gateway under test (`node src/server.ts`) with a temporary config file, reads its URL
// from the pino startup line, then waits for GET /readyz = 200. Until the gateway exists (or when
// it fails to start) the slot carries the reason and the scenario prints 'n/a'.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from 'undici'
import { assertLoopbackListener, assertLoopbackUrl } from './loopback-guard.ts'
import { createChildEnv, describeReason, elapsedMs, type BenchContext, type TargetSlot } from './context.ts'

const START_TIMEOUT_MS = 20_000
const READY_POLL_MS = 5
export const GATEWAY_MISSING = 'src/server.ts missing'
const LISTENING_PATTERN = /Server listening at (https?:\/\/\S+)/

export type BackendEntry = Record<string, unknown>

export interface GatewayOptions {
  backends: BackendEntry[]
  // Extra top-level config (e.g. keepAliveMs).
  settings?: Record<string, unknown>
  // Extra environment (e.g. OTEL_EXPORTER_OTLP_ENDPOINT).
  env?: Record<string, string>
  // The CA of its certificate, when it serves HTTPS (settings.tls).
  ca?: string
}

export function matchGatewayListening(line: string): string | undefined {
  let text = line
  try {
    const entry = JSON.parse(line) as { msg?: unknown }
    if (typeof entry.msg === 'string') text = entry.msg
  } catch {
    // not JSON: match the raw line
  }
  return LISTENING_PATTERN.exec(text)?.[1]?.replace(/["}]+$/, '')
}

export function createHttpEntry(name: string, url: URL, namespace = ''): BackendEntry {
  return { name, transport: 'http', url: url.href, namespace }
}

export function createStdioEntry(ctx: BenchContext, name: string, namespace = ''): BackendEntry {
  const script = join(ctx.benchDir, 'fixtures', 'stdio-backend.ts')
  return { name, transport: 'stdio', command: ctx.nodePath, args: [script], env: { BENCH_REPORT_PORT: String(ctx.reports.port) }, namespace }
}

async function waitForReadyz(origin: string, deadlineNs: bigint, ca?: string): Promise<void> {
  const client = new Client(origin, ca === undefined ? {} : { connect: { ca } })
  try {
    while (process.hrtime.bigint() < deadlineNs) {
      const res = await client.request({ path: '/readyz', method: 'GET' })
      await res.body.dump()
      if (res.statusCode === 200) return
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS))
    }
    throw new Error('/readyz did not answer 200 in time')
  } finally {
    await client.close()
  }
}

function writeConfig(ctx: BenchContext, options: GatewayOptions): string {
  const file = join(ctx.tmpDir, `gateway-${process.hrtime.bigint()}.json`)
  // No drain delay: there is no load balancer to move traffic away, and the profile is written at exit.
  writeFileSync(file, JSON.stringify({ drainDelayMs: 0, ...options.settings, backends: options.backends }, null, 2))
  return file
}

function createProfileArgs(ctx: BenchContext): string[] {
  return ctx.options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', join(ctx.benchDir, 'results', 'profiles')] : []
}

export async function startGateway(ctx: BenchContext, options: GatewayOptions): Promise<TargetSlot> {
  const name = 'gateway'
  if (!existsSync(join(ctx.repoRoot, 'src', 'server.ts'))) return { name, reason: GATEWAY_MISSING }
  const deadlineNs = process.hrtime.bigint() + BigInt(START_TIMEOUT_MS) * 1_000_000n
  try {
    const { handle, ready } = await ctx.group.spawn({
      name,
      command: ctx.nodePath,
      args: [...createProfileArgs(ctx), 'src/server.ts'],
      cwd: ctx.repoRoot,
      env: createChildEnv({
        MCP_GATEWAY_CONFIG: writeConfig(ctx, options),
        MCP_GATEWAY_PORT: '0',
        MCP_GATEWAY_HOST: '127.0.0.1',
        MCP_GATEWAY_LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'info',
        ...options.env
      }),
      matchReady: matchGatewayListening,
      readyTimeoutMs: START_TIMEOUT_MS
    })
    const base = assertLoopbackUrl(ready)
    assertLoopbackListener(Number(base.port))
    await waitForReadyz(base.origin, deadlineNs, options.ca).catch(async (err: unknown) => {
      await handle.stop()
      throw err
    })
    return { name, target: { name, url: new URL('/mcp', base), handle, protocol: 'modern', readyMs: elapsedMs(handle.startedNs) } }
  } catch (err) {
    return { name, reason: `failed to start: ${describeReason(err)}` }
  }
}
