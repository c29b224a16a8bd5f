/**
 * Runs the MCP conformance suite's server leg against the gateway (default) or
 * directly against the conformance fixture, prints a per-scenario table and a
 * closing `N passed, M failed` line (scored scenarios only), and exits non-zero
 * when a scored scenario fails. Everything it starts is stopped before exit.
 *
 * Each `--requirements` set (default: both revisions the gateway serves) runs against the same
 * fixture and gateway; the last line totals them.
 *
 *   CONFORMANCE_TARGET=direct node test/conformance/run.ts
 *   node test/conformance/run.ts [--requirements 2026-07-28 --requirements 2025-11-25] [--gateway-path /mcp]
 *     [--gateway-entry src/server.ts] [--verbose] [--keep-results]
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startFixture, stopChild } from '../helpers/backend-process.ts'
import { collectResults, formatFailures, formatTable, readScoredScenarios, summarize } from './report.ts'
import { parseTargetMode, startTarget } from './targets.ts'
import type { TargetMode } from './targets.ts'
import { createTeardowns } from './teardowns.ts'
import type { Teardowns } from './teardowns.ts'

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURE = join(REPO_ROOT, 'test/fixtures/conformance-server.ts')
const SUITE_DIR = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance')
const SUITE_BIN = join(SUITE_DIR, 'dist/index.js')
const SUITE_DEADLINE_MS = 110_000
// The revisions the gateway serves to clients, newest first.
const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'] as const

interface RunOptions {
  mode: TargetMode
  requirements: string[]
  gatewayPath: string
  gatewayEntry: string
  verbose: boolean
  keepResults: boolean
}

function parseRunOptions(): RunOptions {
  const { values } = parseArgs({
    options: {
      requirements: { type: 'string', multiple: true, default: [...REQUIREMENT_SETS] },
      'gateway-path': { type: 'string', default: '/mcp' },
      'gateway-entry': { type: 'string', default: 'src/server.ts' },
      verbose: { type: 'boolean', default: false },
      'keep-results': { type: 'boolean', default: false },
    },
    strict: true,
  })
  return {
    mode: parseTargetMode(process.env.CONFORMANCE_TARGET),
    requirements: values.requirements,
    gatewayPath: values['gateway-path'],
    gatewayEntry: values['gateway-entry'],
    verbose: values.verbose,
    keepResults: values['keep-results'],
  }
}

/** Runs the suite (with Node 24, not the shim's `env node`); resolves with its exit code. */
async function runSuite(t: Teardowns, run: { url: string; outputDir: string; requirements: string }, options: RunOptions): Promise<number | null> {
  const args = [SUITE_BIN, 'server', '--url', run.url, '--requirements', run.requirements, '-o', run.outputDir]
  const suite = spawn(process.execPath, args, { stdio: ['ignore', options.verbose ? 'inherit' : 'ignore', 'inherit'] })
  t.teardown(() => stopChild(suite))
  const deadline = setTimeout(() => {
    process.stderr.write(`conformance suite still running after ${SUITE_DEADLINE_MS} ms; stopping it\n`)
    suite.kill('SIGTERM')
  }, SUITE_DEADLINE_MS)
  deadline.unref()
  const [code] = (await once(suite, 'exit')) as [number | null]
  clearTimeout(deadline)
  return code
}

interface SetResult {
  passed: number
  failed: number
  ok: boolean
}

async function runSet(t: Teardowns, url: string, requirements: string, options: RunOptions): Promise<SetResult> {
  const outputDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-results-'))
  if (!options.keepResults) t.teardown(() => rm(outputDir, { recursive: true, force: true }))
  process.stdout.write(`conformance ${requirements} (server leg), target ${options.mode}: ${url}\n`)
  const suiteCode = await runSuite(t, { url, outputDir, requirements }, options)
  const scored = await readScoredScenarios(join(SUITE_DIR, 'requirements', `${requirements}.yaml`))
  const results = await collectResults(outputDir, scored)
  process.stdout.write(`${formatTable(results)}\n`)
  const failures = formatFailures(results, options.verbose)
  if (failures !== '') process.stdout.write(`\nfailing checks:\n${failures}\n\n`)
  if (options.keepResults) process.stdout.write(`results kept in ${outputDir}\n`)
  const { passed, failed } = summarize(results)
  process.stdout.write(`${requirements}: ${passed} of ${passed + failed} scored scenarios passed\n\n`)
  if (failed === 0 && suiteCode !== 0) process.stderr.write(`conformance suite exited with ${suiteCode}\n`)
  return { passed, failed, ok: failed === 0 && suiteCode === 0 }
}

async function run(t: Teardowns, options: RunOptions): Promise<number> {
  const fixture = await startFixture(t, FIXTURE)
  const url = await startTarget(t, { ...options, fixtureUrl: fixture.url, repoRoot: REPO_ROOT })
  const sets: SetResult[] = []
  for (const requirements of options.requirements) sets.push(await runSet(t, url, requirements, options))
  const passed = sets.reduce((sum, set) => sum + set.passed, 0)
  const failed = sets.reduce((sum, set) => sum + set.failed, 0)
  process.stdout.write(`${passed} passed, ${failed} failed\n`)
  return sets.every((set) => set.ok) ? 0 : 1
}

async function main(): Promise<void> {
  const options = parseRunOptions()
  const teardowns = createTeardowns()
  const interrupt = (): void => {
    teardowns.runAll().finally(() => process.exit(130))
  }
  process.once('SIGINT', interrupt)
  process.once('SIGTERM', interrupt)
  try {
    process.exitCode = await run(teardowns, options)
  } catch (err) {
    process.stderr.write(`conformance run failed: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exitCode = 1
  } finally {
    await teardowns.runAll()
  }
}

await main()
