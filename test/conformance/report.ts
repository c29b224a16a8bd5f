/**
 * Reads the suite's per-scenario `checks.json` files and the frozen
 * requirement set, and renders the per-scenario table.
 *
 * A scenario fails when any of its checks is FAILURE (WARNING, INFO and
 * SKIPPED do not fail it). A scored scenario with no results counts as failed.
 */
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'

export interface Check {
  id: string
  status: string
  errorMessage?: string
}

export interface ScenarioResult {
  scenario: string
  scored: boolean
  checks: Check[]
  passed: boolean
}

const RESULT_DIR_PATTERN = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/
const FAILURE = 'FAILURE'

/** The `server:` list of a requirements YAML file (a flat list of scenario names). */
export async function readScoredScenarios(requirementsFile: string): Promise<string[]> {
  const lines = (await readFile(requirementsFile, 'utf8')).split('\n')
  const start = lines.findIndex((line) => line.trimEnd() === 'server:')
  if (start < 0) throw new Error(`${requirementsFile}: no "server:" list`)
  const scenarios: string[] = []
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+(\S+)\s*$/.exec(line)
    if (item !== null) scenarios.push(item[1])
    else if (/^\S/.test(line)) break
  }
  return scenarios
}

export async function collectResults(outputDir: string, scored: string[]): Promise<ScenarioResult[]> {
  const checksByScenario = new Map<string, Check[]>()
  for (const entry of await readdir(outputDir)) {
    const scenario = RESULT_DIR_PATTERN.exec(entry)?.[1]
    if (scenario === undefined) continue
    const checks = JSON.parse(await readFile(join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]
    checksByScenario.set(scenario, checks)
  }
  const scoredSet = new Set(scored)
  const names = [...scored, ...[...checksByScenario.keys()].filter((name) => !scoredSet.has(name))]
  return names.map((scenario) => {
    const checks = checksByScenario.get(scenario) ?? []
    const passed = checks.length > 0 && checks.every((check) => check.status !== FAILURE)
    return { scenario, scored: scoredSet.has(scenario), checks, passed }
  })
}

function countStatus(checks: Check[], status: string): number {
  return checks.filter((check) => check.status === status).length
}

function formatRow(result: ScenarioResult, width: number): string {
  const verdict = result.checks.length === 0 ? 'MISSING' : result.passed ? 'pass' : 'FAIL'
  const ok = countStatus(result.checks, 'SUCCESS')
  const failed = countStatus(result.checks, FAILURE)
  const warned = countStatus(result.checks, 'WARNING')
  const other = result.checks.length - ok - failed - warned
  const counts = `${ok} ok, ${failed} failed, ${warned} warn, ${other} other`
  return `| ${result.scenario.padEnd(width)} | ${(result.scored ? 'scored' : 'not scored').padEnd(10)} | ${verdict.padEnd(7)} | ${counts} |`
}

export function formatTable(results: ScenarioResult[]): string {
  const width = Math.max(8, ...results.map((result) => result.scenario.length))
  const header = `| ${'scenario'.padEnd(width)} | ${'scoring'.padEnd(10)} | ${'result'.padEnd(7)} | checks |`
  const rule = `|${'-'.repeat(width + 2)}|${'-'.repeat(12)}|${'-'.repeat(9)}|--------|`
  return [header, rule, ...results.map((result) => formatRow(result, width))].join('\n')
}

/** One line per failing check of each failed scenario (scored ones only, unless `all`). */
export function formatFailures(results: ScenarioResult[], all: boolean): string {
  const lines: string[] = []
  for (const result of results.filter((r) => !r.passed && (all || r.scored))) {
    if (result.checks.length === 0) lines.push(`${result.scenario}: no results`)
    for (const check of result.checks.filter((c) => c.status === FAILURE)) {
      lines.push(`${result.scenario}: ${check.id}: ${check.errorMessage ?? 'failed'}`)
    }
  }
  return lines.join('\n')
}

export function summarize(results: ScenarioResult[]): { passed: number; failed: number } {
  const scored = results.filter((result) => result.scored)
  const passed = scored.filter((result) => result.passed).length
  return { passed, failed: scored.length - passed }
}
