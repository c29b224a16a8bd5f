// What every scenario gets: options, the run's process group, /proc reader, peer resolver, the
// cancellation report listener and paths. Created once per run in run.ts, never module state.
import type { ChildHandle, ProcessGroup } from './child-process.ts'
import type { ProcReader } from './proc-stats.ts'
import type { ReportListener } from './report-listener.ts'

export interface BenchOptions {
  quick: boolean
  scenarios: number[]
  connections: number
  // Measured rounds per target of the load scenarios (--rounds); undefined: the plan's default.
  rounds?: number
  // Run the gateway with --cpu-prof (profiles in bench/results/profiles/).
  cpuProf: boolean
}

export interface PeerResolver {
  // Absolute path of the peer's CLI entry (fetched on demand with `npm exec`, pinned version).
  resolve(name: PeerName): Promise<string>
}

export const PEERS = {
  supergateway: { pkg: 'supergateway', version: '4.0.0', bin: 'supergateway' },
  'mcp-proxy': { pkg: 'mcp-proxy', version: '6.7.19', bin: 'mcp-proxy' }
} as const
export type PeerName = keyof typeof PEERS

export interface BenchContext {
  options: BenchOptions
  group: ProcessGroup
  proc: ProcReader
  peers: PeerResolver
  reports: ReportListener
  repoRoot: string
  benchDir: string
  tmpDir: string
  nodePath: string
}

// A running target: its MCP endpoint and the process whose CPU and memory are measured.
export interface Target {
  name: string
  url: URL
  handle: ChildHandle
  // How clients talk to it: per-request 2026-07-28, or one shared 2025-11-25 session.
  protocol: 'modern' | 'legacy-session'
  readyMs: number
  // The processes whose CPU is billed to this target (default: handle's), e.g. replicas behind a balancer.
  measuredPids?: number[]
}

// A target that could not run, and why (shown as 'n/a').
export interface TargetSlot {
  name: string
  target?: Target
  reason?: string
  // Shown under the table, e.g. when the gateway had to start without its stdio backend.
  note?: string
  withoutStdio?: boolean
}

export function elapsedMs(sinceNs: bigint): number {
  return Number(process.hrtime.bigint() - sinceNs) / 1_000_000
}

export function describeReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err)
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

// Minimal environment for our own children: nothing of the harness leaks in.
export function createChildEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra }
}
