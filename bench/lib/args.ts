// Command line: `npm run bench -- [--quick] [--scenario N[,M]]... [--connections N] [--rounds N] [--cpu-prof]`.
import type { BenchOptions } from './context.ts'

export const ALL_SCENARIOS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const
const DEFAULT_CONNECTIONS = 32
const MAX_CONNECTIONS = 1_024
const MAX_ROUNDS = 50

export const USAGE = `usage: npm run bench -- [--quick] [--scenario N[,M]]... [--connections N] [--rounds N] [--cpu-prof]
  --quick          short runs (about a minute in all)
  --scenario N     run only scenario N (1..12); repeat or comma-separate for several
  --connections N  concurrent connections for scenarios 1, 2, 7, 9, 10 and 11 (default ${DEFAULT_CONNECTIONS})
  --rounds N       measured rounds per target in the load scenarios 1, 2, 4, 7, 10, 11 and 12 (default 3, or 1
                   with --quick): more rounds give the medians of paired rounds more pairs on a noisy machine
  --cpu-prof       profile the gateway and the bare forwarder (node --cpu-prof) into bench/results/profiles/`

function parseScenarios(text: string): number[] {
  const ids = text.split(',').map((part) => Number(part.trim()))
  const known: readonly number[] = ALL_SCENARIOS
  const unknown = ids.filter((id) => !known.includes(id))
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}`)
  return ids
}

function parseCount(flag: string, text: string, max: number): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${flag} must be 1..${max}`)
  return value
}

function readValue(args: string[], index: number, flag: string): string {
  const inline = args[index].includes('=') ? args[index].split('=')[1] : undefined
  const value = inline ?? args[index + 1]
  if (value === undefined) throw new Error(`${flag} needs a value`)
  return value
}

export function parseArgs(args: string[]): BenchOptions & { help: boolean } {
  const options = { quick: false, scenarios: [] as number[], connections: DEFAULT_CONNECTIONS, rounds: undefined as number | undefined, cpuProf: false, help: false }
  for (let i = 0; i < args.length; i++) {
    const flag = args[i].split('=')[0]
    const takesValue = !args[i].includes('=')
    if (flag === '--quick') options.quick = true
    else if (flag === '--cpu-prof') options.cpuProf = true
    else if (flag === '--help' || flag === '-h') options.help = true
    else if (flag === '--scenario') options.scenarios.push(...parseScenarios(readValue(args, i, flag)))
    else if (flag === '--connections') options.connections = parseCount(flag, readValue(args, i, flag), MAX_CONNECTIONS)
    else if (flag === '--rounds') options.rounds = parseCount(flag, readValue(args, i, flag), MAX_ROUNDS)
    else throw new Error(`unknown option ${args[i]}`)
    if ((flag === '--scenario' || flag === '--connections' || flag === '--rounds') && takesValue) i++
  }
  if (options.scenarios.length === 0) options.scenarios = [...ALL_SCENARIOS]
  options.scenarios = [...new Set(options.scenarios)].sort((a, b) => a - b)
  return options
}
