// `npm run bench`: runs the scenarios of issue 5 side by side, prints a table per scenario with
// its ratios, and writes bench/results/latest.json (+ latest.md). Loopback only; every loop is
// bounded in count and time, and a watchdog ends the whole run if it ever overstays.
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, USAGE } from './lib/args.ts'
import { createProcessGroup, type ProcessGroup } from './lib/child-process.ts'
import type { BenchContext, BenchOptions } from './lib/context.ts'
import { createPeerResolver } from './lib/peer-targets.ts'
import { createProcReader } from './lib/proc-stats.ts'
import { summarizeProfilesSince } from './lib/profile-summary.ts'
import { formatReport, type ScenarioReport } from './lib/report.ts'
import { createReportListener } from './lib/report-listener.ts'
import { describeMachine, writeResults, type ScenarioOutcome } from './lib/results-file.ts'
import { runToolsCallJson } from './scenarios/s1-tools-call-json.ts'
import { runProgressSse } from './scenarios/s2-progress-sse.ts'
import { runIdleListen } from './scenarios/s3-idle-listen.ts'
import { runStdioShared } from './scenarios/s4-stdio-shared.ts'
import { runCancellation } from './scenarios/s5-cancellation.ts'
import { runColdStart } from './scenarios/s6-cold-start.ts'
import { runToolsCallJwt } from './scenarios/s7-tools-call-jwt.ts'
import { runNoisyNeighbour } from './scenarios/s8-noisy-neighbour.ts'
import { runLegacySession } from './scenarios/s9-legacy-session.ts'
import { runToolsCallTraced } from './scenarios/s10-tools-call-traced.ts'
import { runToolsCallTls } from './scenarios/s11-tools-call-tls.ts'
import { runReplicas } from './scenarios/s12-replicas.ts'

const WATCHDOG_MS = 9 * 60_000

const SCENARIOS: readonly ((ctx: BenchContext) => Promise<ScenarioReport>)[] = [
  runToolsCallJson, runProgressSse, runIdleListen, runStdioShared, runCancellation, runColdStart, runToolsCallJwt, runNoisyNeighbour, runLegacySession,
  runToolsCallTraced, runToolsCallTls, runReplicas,
]

async function runScenario(ctx: BenchContext, id: number): Promise<ScenarioOutcome> {
  const startedNs = process.hrtime.bigint()
  const run = SCENARIOS[id - 1]
  const durationMs = (): number => Math.round(Number(process.hrtime.bigint() - startedNs) / 1e6)
  try {
    const loadBefore = loadavg()[0]
    const report = await run(ctx)
    const load = `load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`
    process.stdout.write(`${formatReport(report)}\n(${(durationMs() / 1000).toFixed(1)} s; ${load})\n`)
    return { id, report, durationMs: durationMs(), loadAverage: [loadBefore, loadavg()[0]] }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err)
    process.stdout.write(`\n== Scenario ${id}: FAILED: ${error}\n`)
    return { id, error, durationMs: durationMs() }
  }
}

function armWatchdog(group: ProcessGroup): void {
  const timer = setTimeout(() => {
    process.stderr.write(`bench: watchdog after ${WATCHDOG_MS / 60_000} min, stopping\n`)
    group.stopAll().finally(() => process.exit(2))
  }, WATCHDOG_MS)
  timer.unref()
  const stop = (): void => void group.stopAll().finally(() => process.exit(130))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

async function runAll(options: BenchOptions): Promise<void> {
  const benchDir = dirname(fileURLToPath(import.meta.url))
  const proc = createProcReader()
  const group = createProcessGroup(proc)
  const reports = await createReportListener()
  const tmpDir = mkdtempSync(join(tmpdir(), 'mcp-gateway-bench-'))
  const ctx: BenchContext = {
    options, group, proc, reports, benchDir, tmpDir, peers: createPeerResolver(), repoRoot: dirname(benchDir), nodePath: process.execPath
  }
  armWatchdog(group)
  const machine = describeMachine()
  const startedMs = Date.now()
  const mode = [options.quick ? 'quick' : '', options.rounds === undefined ? '' : `${options.rounds} rounds`, options.cpuProf ? 'gateway profiled' : ''].filter(Boolean).join(', ')
  const where = `${machine.cores} × ${machine.cpuModel}, Node ${machine.node}`
  process.stdout.write(`mcp-gateway bench${mode === '' ? '' : ` (${mode})`}: scenarios ${options.scenarios.join(', ')} on ${where}\n`)
  const outcomes: ScenarioOutcome[] = []
  try {
    for (const id of options.scenarios) outcomes.push(await runScenario(ctx, id))
  } finally {
    await group.stopAll()
    reports.close()
    rmSync(tmpDir, { recursive: true, force: true })
  }
  if (options.cpuProf) process.stdout.write(`${summarizeProfilesSince(join(benchDir, 'results', 'profiles'), startedMs)}\n`)
  process.stdout.write(`\nresults: ${writeResults(benchDir, options, outcomes)}\n`)
  if (outcomes.some((outcome) => outcome.error !== undefined)) process.exitCode = 1
}

function main(): void {
  let options: ReturnType<typeof parseArgs>
  try {
    options = parseArgs(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`)
    process.exit(64)
  }
  const { help, ...benchOptions } = options
  if (help) return void process.stdout.write(`${USAGE}\n`)
  runAll(benchOptions).catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  })
}

main()
