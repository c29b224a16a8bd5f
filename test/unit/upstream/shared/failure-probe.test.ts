// A request that fails to connect fails alone: the backend goes down on a failed probe or on
// several callers' failures in a row, never on one caller's; one probe at a time.
import t from 'tap'
import type { Logger } from '../../../../src/observability/logger.ts'
import { BackendState } from '../../../../src/upstream/shared/backend-state.ts'
import { FailureProbe } from '../../../../src/upstream/shared/failure-probe.ts'

const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger

function setup(probeResult: string | undefined) {
  const state = new BackendState({ name: 'b', transport: 'http', logger, initialReason: 'x', downAfterFailures: 3 })
  state.setUp({ era: 'modern', protocolVersion: '2026-07-28', capabilities: {} })
  const downs: string[] = []
  let probes = 0
  let finish: () => void = () => {}
  const probe = () => {
    probes++
    return new Promise<string | undefined>((resolve) => { finish = () => resolve(probeResult) })
  }
  const failures = new FailureProbe({ backend: 'b', state, logger, probe, markDown: (reason) => { downs.push(reason); state.setDown(reason) } })
  const settle = async (): Promise<void> => {
    finish()
    for (let i = 0; i < 5; i++) await Promise.resolve()
  }
  return { state, failures, downs, probes: () => probes, settle }
}

t.test('one caller failing again and again, the probe reaches the backend → still up, one probe at a time', async (t) => {
  const { state, failures, downs, probes, settle } = setup(undefined)
  for (let i = 0; i < 10; i++) failures.onConnectFailure('ECONNRESET', 'attacker')
  t.equal(probes(), 1, 'ten failures while a probe runs → one probe')
  await settle()
  failures.onConnectFailure('ECONNRESET', 'attacker')
  t.equal(probes(), 2, 'the next failure after it → the next probe')
  await settle()
  t.same(downs, [])
  t.equal(state.up, true)
})

t.test('the probe fails too → down with the probe\'s reason', async (t) => {
  const { state, failures, downs, settle } = setup('connection refused')
  failures.onConnectFailure('ECONNREFUSED', 'victim')
  t.equal(state.up, true, 'not down before the probe has answered')
  await settle()
  t.same(downs, ['connection refused'])
  t.equal(state.up, false)
})

t.test('three different callers in a row → down at once, whatever the probe', async (t) => {
  const { failures, downs } = setup(undefined)
  failures.onConnectFailure('ECONNRESET', 'a')
  failures.onConnectFailure('ECONNRESET', 'b')
  t.same(downs, [])
  failures.onConnectFailure('ECONNRESET', 'c')
  t.same(downs, ['ECONNRESET (requests of several clients in a row)'])
})
