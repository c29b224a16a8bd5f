// A gateway with one backend of each era behind it, for the 2025-11-25 client tests: an SDK v2
// HTTP backend "alpha" (modern, with extras, namespace "a") and the legacy stdio fixture
// (2025-11-25 only, namespace "lg"). Both are real processes, torn down with the test.
import type { Test } from 'tap'
import { startFixture, type FixtureProcess } from './backend-process.ts'
import { startGateway, type StartedGateway } from './start-gateway.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname

export async function startTwoEraGateway(t: Test): Promise<{ alpha: FixtureProcess; gateway: StartedGateway }> {
  const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras'])
  const gateway = await startGateway(t, {
    backends: [
      { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
      { name: 'lg', transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace: 'lg' },
    ],
  }, { logs: true })
  return { alpha, gateway }
}
