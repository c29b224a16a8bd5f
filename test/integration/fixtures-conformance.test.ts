/**
 * The conformance fixture and runner: the runner in direct mode must score
 * every required 2026-07-28 server scenario, and the fixture must serve the
 * multi-round-trip tools to a real SDK v2 client (which fulfils
 * `input_required` results through its registered request handlers).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import t from 'tap'
import { startFixture, stopChild } from '../helpers/backend-process.ts'
import type { TeardownHost } from '../helpers/backend-process.ts'
import { readScoredScenarios } from '../conformance/report.ts'

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURE = fileURLToPath(new URL('../fixtures/conformance-server.ts', import.meta.url))
const RUNNER = fileURLToPath(new URL('../conformance/run.ts', import.meta.url))
const REQUIREMENTS = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/requirements/2026-07-28.yaml', import.meta.url),
)

interface RunnerOutcome {
  code: number | null
  stdout: string
}

async function runRunner(t: TeardownHost, args: string[], env: Record<string, string>): Promise<RunnerOutcome> {
  const child = spawn(process.execPath, [RUNNER, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => stopChild(child))
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr.resume()
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout }
}

async function connectClient(t: TeardownHost, url: string): Promise<Client> {
  const client = new Client(
    { name: 'fixtures-conformance-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: {} } },
  )
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Alice' } }))
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  t.teardown(() => client.close())
  return client
}

t.test('2026-07-28 requirement set → 37 scored server scenarios', async (t) => {
  const scored = await readScoredScenarios(REQUIREMENTS)
  t.equal(scored.length, 37)
  t.ok(scored.includes('server-stateless'))
  t.ok(scored.includes('input-required-result-validate-input'))
})

t.test('runner in direct mode, 2026-07-28 set → every scored scenario passes', async (t) => {
  const { code, stdout } = await runRunner(t, ['--requirements', '2026-07-28'], { CONFORMANCE_TARGET: 'direct' })
  t.equal(code, 0, 'runner exits 0', { stdout })
  t.match(stdout, /\| server-stateless +\| scored +\| pass /)
  t.equal(stdout.trimEnd().split('\n').at(-1), '37 passed, 0 failed')
})

t.test('runner in gateway mode with a missing gateway → exits non-zero', async (t) => {
  const { code } = await runRunner(t, ['--gateway-entry', 'test/fixtures/no-such-gateway.ts'], { CONFORMANCE_TARGET: 'gateway' })
  t.equal(code, 1)
})

t.test('runner with an unknown target → exits non-zero', async (t) => {
  const { code } = await runRunner(t, [], { CONFORMANCE_TARGET: 'sideways' })
  t.equal(code, 1)
})

t.test('input-required elicitation tool → the SDK client fulfils it and gets the greeting', async (t) => {
  const fixture = await startFixture(t, FIXTURE)
  const client = await connectClient(t, fixture.url)
  const result = (await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })) as CallToolResult
  t.same(result.content, [{ type: 'text', text: 'Hello, Alice!' }])
})

t.test('multi-round tool → completes after two client-fulfilled rounds', async (t) => {
  const fixture = await startFixture(t, FIXTURE)
  const client = await connectClient(t, fixture.url)
  const result = (await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} })) as CallToolResult
  t.same(result.content, [{ type: 'text', text: 'Both rounds answered.' }])
})
