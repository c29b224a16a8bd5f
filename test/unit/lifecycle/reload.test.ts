// The Reloader (src/lifecycle/reload.ts): requests coalesce (one running, at most one waiting), a
// config that does not load is refused with its errors, settings that need a restart are named.
import t from 'tap'
import { ConfigError } from '../../../src/config/loader.ts'
import { validateConfig } from '../../../src/config/schema.ts'
import type { GatewayConfig } from '../../../src/config/types.ts'
import { Reloader, restartNeededFor, type ReloaderDeps } from '../../../src/lifecycle/reload.ts'
import type { SwapSummary } from '../../../src/lifecycle/backend-swap.ts'

function config(raw: Record<string, unknown> = {}): GatewayConfig {
  const result = validateConfig(raw)
  if (!result.ok) throw new Error(result.errors.join('; '))
  return result.config
}

const NOTHING: SwapSummary = { added: [], removed: [], changed: [] }
const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as ReloaderDeps['logger']

function harness(load: () => GatewayConfig) {
  const outcomes: string[] = []
  const swaps: Array<() => void> = []
  let loads = 0
  const deps: ReloaderDeps = {
    load: () => (loads++, load()),
    running: config(),
    // Each swap waits until the test lets it finish.
    swap: () => new Promise<SwapSummary>((resolve) => swaps.push(() => resolve(NOTHING))),
    setLogLevel: () => {},
    logger: silent,
    metrics: { counted: (outcome) => void outcomes.push(outcome) },
  }
  return { reloader: new Reloader(deps), outcomes, swaps, loads: () => loads }
}

t.test('a storm of requests → one reload running, one queued, shared by the rest', async (t) => {
  const h = harness(() => config())
  const first = h.reloader.request('SIGHUP')
  const rest = Array.from({ length: 9 }, () => h.reloader.request('SIGHUP'))
  t.equal(h.loads(), 1, 'one running')
  t.equal(new Set(rest).size, 1, 'the other nine share one queued reload')
  h.swaps.shift()!()
  await first
  await new Promise(setImmediate)
  t.equal(h.loads(), 2, 'the queued one runs after the first')
  const after = h.reloader.request('SIGHUP')
  t.not(after, rest[0], 'a request while the queued one runs queues a third')
  h.swaps.shift()!()
  t.match(await rest[0], { outcome: 'unchanged' })
  h.swaps.shift()!()
  await after
  t.same(h.outcomes, ['unchanged', 'unchanged', 'unchanged'], 'each reload counted once')
})

t.test('a config that does not load → refused with every error, nothing swapped', async (t) => {
  const h = harness(() => {
    throw new ConfigError(['port: must be an integer', 'config.bogus: unknown key'])
  })
  const result = await h.reloader.request('admin')
  t.match(result, { outcome: 'refused', errors: ['port: must be an integer', 'config.bogus: unknown key'] })
  t.equal(h.swaps.length, 0)
  t.same(h.outcomes, ['refused'])
})

t.test('restartNeededFor → the changed settings a reload cannot apply', async (t) => {
  const running = config({ port: 8080 })
  t.same(restartNeededFor(running, config({ port: 8080, logLevel: 'debug', backends: [] })), [], 'logLevel and backends apply live')
  t.same(restartNeededFor(running, config({ port: 9090, host: '0.0.0.0' })), ['host', 'port'])
  t.same(restartNeededFor(running, config({ port: 8080, stateSecret: 'x'.repeat(40) })), ['stateSecret'], 'named, never shown')
})

t.test('hooks run with the new config after the swap', async (t) => {
  const next = config({ logLevel: 'warn' })
  const h = harness(() => next)
  const seen: GatewayConfig[] = []
  h.reloader.addHook((c) => void seen.push(c))
  const pending = h.reloader.request('SIGHUP')
  h.swaps.shift()!()
  t.match(await pending, { outcome: 'applied' }, 'a new log level is a change')
  t.equal(seen[0], next)
})
