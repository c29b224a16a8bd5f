// What a scenario hands back: one table (rows by target, null shown as 'n/a'), the ratios that the
// issue's targets are judged by, and notes. Printed as text and written as JSON.
export type Cell = number | string | null

export interface Column {
  key: string
  label: string
  digits?: number
}

export interface RatioLine {
  label: string
  value: number | null
  // The target, e.g. '>= 0.9'; met is computed only when both sides ran.
  goal?: string
  met?: boolean
}

export interface ScenarioReport {
  id: number
  title: string
  columns: Column[]
  rows: Record<string, Cell>[]
  ratios: RatioLine[]
  notes: string[]
}

function formatCell(value: Cell, digits = 1): string {
  if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return 'n/a'
  if (typeof value === 'string') return value
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

export function formatTable(report: ScenarioReport): string {
  const header = report.columns.map((column) => column.label)
  const body = report.rows.map((row) => report.columns.map((column) => formatCell(row[column.key] ?? null, column.digits)))
  const widths = header.map((label, i) => Math.max(label.length, ...body.map((cells) => cells[i].length)))
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n')
}

function formatRatio(ratio: RatioLine): string {
  const value = ratio.value === null || !Number.isFinite(ratio.value) ? 'n/a' : `${ratio.value.toFixed(2)}`
  const goal = ratio.goal === undefined ? '' : `  (target ${ratio.goal}${ratio.met === undefined ? '' : ratio.met ? ': met' : ': NOT met'})`
  return `  ${ratio.label}: ${value}${goal}`
}

export function formatReport(report: ScenarioReport): string {
  const parts = [`\n== Scenario ${report.id}: ${report.title} ==`, formatTable(report)]
  if (report.ratios.length > 0) parts.push('ratios:', ...report.ratios.map(formatRatio))
  for (const note of report.notes) parts.push(`note: ${note}`)
  return parts.join('\n')
}

// A ratio between two cells that may be n/a; `goal` is checked with `check` when both ran.
export function createRatio(label: string, numerator: Cell, denominator: Cell, goal?: { text: string; check(value: number): boolean }): RatioLine {
  const valid = typeof numerator === 'number' && typeof denominator === 'number' && denominator > 0 && Number.isFinite(numerator)
  const value = valid ? (numerator as number) / (denominator as number) : null
  return { label, value, goal: goal?.text, met: value === null || goal === undefined ? undefined : goal.check(value) }
}

export function createAbsolute(label: string, value: Cell, goal: { text: string; check(value: number): boolean }): RatioLine {
  const number = typeof value === 'number' && Number.isFinite(value) ? value : null
  return { label, value: number, goal: goal.text, met: number === null ? undefined : goal.check(number) }
}
