// Starts the light fixture backend and the bare Fastify+undici forwarder as child processes.
import { join } from 'node:path'
import { assertLoopbackUrl } from './loopback-guard.ts'
import { createChildEnv, elapsedMs, type BenchContext, type Target } from './context.ts'

const READY_TIMEOUT_MS = 15_000
const DEFAULT_KEEP_ALIVE_MS = 15_000

export interface HttpBackendOptions {
  name?: string
  keepAliveMs?: number
}

export function matchListening(line: string): string | undefined {
  return /^LISTENING (http:\/\/\S+)$/.exec(line)?.[1]
}

export function resolveStdioBackend(ctx: BenchContext): string {
  return join(ctx.benchDir, 'fixtures', 'stdio-backend.ts')
}

// With --cpu-prof the bare forwarder is profiled too, beside the gateway (bare-*.cpuprofile).
function profileArgs(ctx: BenchContext, name: string): string[] {
  if (!ctx.options.cpuProf || name !== 'bare') return []
  return ['--cpu-prof', '--cpu-prof-dir', join(ctx.benchDir, 'results', 'profiles'), '--cpu-prof-name', `bare-${Date.now()}.cpuprofile`]
}

async function startNodeFixture(ctx: BenchContext, name: string, script: string, env: Record<string, string>): Promise<Target> {
  const { handle, ready } = await ctx.group.spawn({
    name,
    command: ctx.nodePath,
    args: [...profileArgs(ctx, name), script],
    env: createChildEnv(env),
    cwd: ctx.repoRoot,
    matchReady: matchListening,
    readyTimeoutMs: READY_TIMEOUT_MS
  })
  const url = new URL('/mcp', assertLoopbackUrl(ready))
  return { name, url, handle, protocol: 'modern', readyMs: elapsedMs(handle.startedNs) }
}

export function startHttpBackend(ctx: BenchContext, options: HttpBackendOptions = {}): Promise<Target> {
  return startNodeFixture(ctx, options.name ?? 'backend', join(ctx.benchDir, 'fixtures', 'http-backend.ts'), {
    BENCH_KEEPALIVE_MS: String(options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS),
    BENCH_REPORT_PORT: String(ctx.reports.port)
  })
}

// The OTLP sink of the tracing scenario (lib/otlp-sink.ts), in a process of its own.
export function startSinkFixture(ctx: BenchContext): Promise<Target> {
  return startNodeFixture(ctx, 'otlp-sink', join(ctx.benchDir, 'fixtures', 'otlp-sink.ts'), {})
}

// `raw`: the body passed on as bytes, unparsed (the "bare-raw" row); else parsed and re-serialised.
export function startBareForwarder(ctx: BenchContext, upstream: URL, options: { raw?: boolean } = {}): Promise<Target> {
  return startNodeFixture(ctx, options.raw === true ? 'bare-raw' : 'bare', join(ctx.benchDir, 'bare-forwarder.ts'), {
    BENCH_UPSTREAM: assertLoopbackUrl(upstream.href).href,
    BENCH_CONNECTIONS: '256',
    BENCH_RAW: options.raw === true ? '1' : '0'
  })
}
