// The machine-readable results (bench/results/latest.json) and a Markdown rendering of the same
// tables (bench/results/latest.md) for the README.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'
import { join } from 'node:path'
import type { BenchOptions } from './context.ts'
import type { Cell, ScenarioReport } from './report.ts'

export interface ScenarioOutcome {
  report?: ScenarioReport
  id: number
  error?: string
  durationMs: number
  // 1-minute load average before and after: other work on the machine distorts absolute figures.
  loadAverage?: number[]
}

export interface Machine {
  cpuModel: string
  cores: number
  memoryGb: number
  kernel: string
  node: string
}

export function describeMachine(): Machine {
  const list = cpus()
  return {
    cpuModel: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    kernel: `${process.platform} ${release()}`,
    node: process.version
  }
}

function renderCell(value: Cell | undefined, digits = 1): string {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return 'n/a'
  return typeof value === 'number' ? value.toFixed(digits) : value
}

function renderMarkdown(report: ScenarioReport): string[] {
  const lines = [`### Scenario ${report.id}: ${report.title}`, '']
  lines.push(`| ${report.columns.map((column) => column.label).join(' | ')} |`)
  lines.push(`|${report.columns.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`)
  for (const row of report.rows) lines.push(`| ${report.columns.map((column) => renderCell(row[column.key], column.digits)).join(' | ')} |`)
  lines.push('')
  for (const ratio of report.ratios) {
    const goal = ratio.goal === undefined ? '' : ` (target ${ratio.goal}${ratio.met === undefined ? '' : ratio.met ? ', met' : ', not met'})`
    lines.push(`- ${ratio.label}: ${ratio.value === null ? 'n/a' : ratio.value.toFixed(2)}${goal}`)
  }
  for (const note of report.notes) lines.push(`- _${note}_`)
  return [...lines, '']
}

export function writeResults(benchDir: string, options: BenchOptions, outcomes: ScenarioOutcome[]): string {
  const dir = join(benchDir, 'results')
  mkdirSync(dir, { recursive: true })
  const machine = describeMachine()
  const command = `npm run bench${options.quick ? ' -- --quick' : ''}`
  const document = { generatedAt: new Date().toISOString(), command, machine, options, scenarios: outcomes }
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(document, null, 2)}\n`)
  const where = `${machine.cores} × ${machine.cpuModel}, ${machine.memoryGb} GB, ${machine.kernel}, Node ${machine.node}`
  const header = [`Measured with \`${command}\` on ${where}, ${document.generatedAt}.`, '']
  const renderOutcome = (outcome: ScenarioOutcome): string[] =>
    outcome.report ? renderMarkdown(outcome.report) : [`### Scenario ${outcome.id}: failed (${outcome.error})`, '']
  const body = outcomes.flatMap(renderOutcome)
  writeFileSync(join(dir, 'latest.md'), [...header, ...body].join('\n'))
  return join(dir, 'latest.json')
}
