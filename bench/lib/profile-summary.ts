// With --cpu-prof: the top self-time functions of each gateway (and bare forwarder) profile written during this run,
// so that the hot path shows up next to the tables.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const TOP_FUNCTIONS = 20
const IDLE_FRAME = '(idle)'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

function describeFrame(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url === '' ? '' : ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`
  return `${functionName === '' ? '(anonymous)' : functionName}${file}`
}

export function summarizeProfile(profile: CpuProfile): string[] {
  const timeById = new Map<number, number>()
  profile.samples.forEach((id, i) => timeById.set(id, (timeById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const selfTime = new Map<string, number>()
  for (const node of profile.nodes) {
    const key = describeFrame(node)
    if (key === IDLE_FRAME) continue
    selfTime.set(key, (selfTime.get(key) ?? 0) + (timeById.get(node.id) ?? 0))
  }
  const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0)
  return [...selfTime.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_FUNCTIONS)
    .map(([frame, time]) => `${((time / total) * 100).toFixed(1).padStart(5)}%  ${frame}`)
}

export function summarizeProfilesSince(dir: string, sinceMs: number): string {
  let files: string[]
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile') && statSync(join(dir, file)).mtimeMs >= sinceMs)
  } catch {
    return ''
  }
  return files
    .map((file) => {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
      return [`\n== ${file.startsWith('bare-') ? 'bare forwarder' : 'gateway'} profile ${file} (self time, % of busy time) ==`, ...summarizeProfile(profile)].join('\n')
    })
    .join('\n')
}
