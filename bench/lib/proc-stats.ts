// CPU time and memory of one process, read from /proc so that it works for every target alike
// (our children and the peers). utime+stime cover all of the process's threads (JS, GC, libuv
// pool) but not its own children, so a proxy's stdio backend is never billed to the proxy.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

const DEFAULT_CLOCK_TICKS = 100
const MICROS_PER_SECOND = 1_000_000

export interface Memory {
  rssKb: number
  hwmKb: number
}

export interface ProcReader {
  cpuMicros(pid: number): number
  memory(pid: number): Memory
  descendants(pid: number): number[]
}

function readClockTicks(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())
    return ticks > 0 ? ticks : DEFAULT_CLOCK_TICKS
  } catch {
    return DEFAULT_CLOCK_TICKS
  }
}

// Fields after the parenthesised command name: state is index 0, utime 11, stime 12.
function readTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

function readStatusKb(status: string, key: string): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)
  return match ? Number(match[1]) : 0
}

function readChildren(pid: number): number[] {
  const children: number[] = []
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return children
  }
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
      if (text !== '') children.push(...text.split(' ').map(Number))
    } catch {
      // the task ended while we looked
    }
  }
  return children
}

export function createProcReader(): ProcReader {
  const ticks = readClockTicks()
  return {
    cpuMicros: (pid) => (readTicks(pid) * MICROS_PER_SECOND) / ticks,
    memory(pid) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      return { rssKb: readStatusKb(status, 'VmRSS'), hwmKb: readStatusKb(status, 'VmHWM') }
    },
    descendants(pid) {
      const found: number[] = []
      const queue = readChildren(pid)
      while (queue.length > 0) {
        const next = queue.shift() as number
        found.push(next)
        queue.push(...readChildren(next))
      }
      return found
    }
  }
}
