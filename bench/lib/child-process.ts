// Every target runs as its own child process (so that its CPU and RSS can be read from /proc),
// started without a shell, watched for a readiness line, and stopped stdin end → SIGTERM →
// SIGKILL, together with anything it spawned. A ProcessGroup owns the children of one run.
import { spawn, type ChildProcess } from 'node:child_process'
import type { ProcReader } from './proc-stats.ts'

const KEPT_LINES = 30
const STOP_GRACE_MS = 3_000
const PROBE_INTERVAL_MS = 5

export interface ChildHandle {
  name: string
  pid: number
  child: ChildProcess
  startedNs: bigint
  lastLines: string[]
  stop(): Promise<void>
}

export interface SpawnSpec {
  name: string
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd?: string
  // Returns a value (e.g. the URL) when an output line shows readiness...
  matchReady?(line: string): string | undefined
  // ...or, for a target that prints nothing, when a probe (polled) answers.
  probeReady?(): Promise<string | undefined>
  readyTimeoutMs: number
}

export interface ProcessGroup {
  spawn(spec: SpawnSpec): Promise<{ handle: ChildHandle; ready: string }>
  stopAll(): Promise<void>
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

async function stopTree(proc: ProcReader, child: ChildProcess): Promise<void> {
  const pid = child.pid
  if (pid === undefined) return
  const descendants = isAlive(pid) ? proc.descendants(pid) : []
  child.stdin?.end()
  child.kill('SIGTERM')
  if (!(await waitForExit(child, STOP_GRACE_MS))) child.kill('SIGKILL')
  await waitForExit(child, STOP_GRACE_MS)
  descendants.filter(isAlive).forEach((orphan) => signal(orphan, 'SIGTERM'))
  await new Promise((resolve) => setTimeout(resolve, 100))
  descendants.filter(isAlive).forEach((orphan) => signal(orphan, 'SIGKILL'))
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}

// Splits output into lines until `isReady()`; after that only the raw tail is kept, so that a
// target logging per request costs the load generator next to nothing.
function watchOutput(handle: ChildHandle, isReady: () => boolean, onLine: (line: string) => void): void {
  for (const stream of [handle.child.stdout, handle.child.stderr]) {
    let pending = ''
    stream?.setEncoding('utf8')
    stream?.on('data', (chunk: string) => {
      if (isReady()) return keepTail(handle.lastLines, chunk)
      const lines = (pending + chunk).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) onLine(line)
    })
  }
}

// The most telling output of a child that died: its error lines, else its last lines.
function summarizeOutput(lines: string[]): string {
  const errors = lines.filter((line) => /error|fail/i.test(line) && !/^\s+at /.test(line))
  return (errors.length > 0 ? errors.slice(0, 2) : lines.slice(-3)).join(' | ')
}

function keepTail(lines: string[], text: string): void {
  lines.push(text.length > 2_000 ? text.slice(-2_000) : text)
  if (lines.length > KEPT_LINES) lines.shift()
}

function awaitReady(handle: ChildHandle, spec: SpawnSpec): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false
    const settle = (error: Error | undefined, value = ''): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) reject(error)
      else resolve(value)
    }
    const timer = setTimeout(() => settle(new Error(`${spec.name}: not ready in ${spec.readyTimeoutMs} ms`)), spec.readyTimeoutMs)
    handle.child.once('error', (err) => settle(err))
    handle.child.once('exit', (code, signal) => {
      settle(new Error(`${spec.name} exited (${code ?? signal}) before ready: ${summarizeOutput(handle.lastLines)}`))
    })
    watchOutput(handle, () => settled, (line) => {
      keepTail(handle.lastLines, line)
      const value = spec.matchReady?.(line)
      if (value !== undefined) settle(undefined, value)
    })
    if (spec.probeReady) {
      pollReady({ probe: spec.probeReady, isDone: () => settled, onReady: (value) => settle(undefined, value), onFail: settle })
    }
  })
}

// Polls until the probe answers a value (ready) or throws (a hard failure, e.g. not loopback).
interface Poll {
  probe(): Promise<string | undefined>
  isDone(): boolean
  onReady(value: string): void
  onFail(err: Error): void
}

function pollReady(poll: Poll): void {
  const tick = (): void => {
    if (poll.isDone()) return
    poll.probe().then((value) => {
      if (value !== undefined) poll.onReady(value)
      else setTimeout(tick, PROBE_INTERVAL_MS)
    }, (err: unknown) => poll.onFail(err instanceof Error ? err : new Error(String(err))))
  }
  tick()
}

export function createProcessGroup(proc: ProcReader): ProcessGroup {
  const handles = new Set<ChildHandle>()
  return {
    async spawn(spec) {
      const startedNs = process.hrtime.bigint()
      const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['pipe', 'pipe', 'pipe'] })
      child.stdin?.on('error', () => {})
      const handle: ChildHandle = {
        name: spec.name,
        pid: child.pid ?? -1,
        child,
        startedNs,
        lastLines: [],
        stop: async () => {
          handles.delete(handle)
          await stopTree(proc, child)
        }
      }
      handles.add(handle)
      try {
        return { handle, ready: await awaitReady(handle, spec) }
      } catch (err) {
        await handle.stop()
        throw err
      }
    },
    async stopAll() {
      await Promise.all([...handles].map((handle) => handle.stop()))
    }
  }
}
