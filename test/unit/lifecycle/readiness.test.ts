// readiness(): probed once, then required backends (or minBackendsUp) up; draining is never ready.
import t from 'tap'
import { readiness, type ReadinessBackend } from '../../../src/lifecycle/readiness.ts'

function backend(name: string, state: 'up' | 'down' | 'unprobed', required = true): ReadinessBackend {
  const up = state === 'up'
  return { status: { name, transport: 'http', era: up ? 'modern' : 'unknown', up, ...(up ? {} : { reason: 'cannot reach backend (ECONNREFUSED)' }) }, required, probed: state !== 'unprobed' }
}

const cases: Array<[string, Parameters<typeof readiness>[0], { ready: boolean; status: string; reason?: string }]> = [
  ['no backends', { backends: [], draining: false }, { ready: true, status: 'ready' }],
  ['all up', { backends: [backend('a', 'up'), backend('b', 'up')], draining: false }, { ready: true, status: 'ready' }],
  ['one not probed, others up', { backends: [backend('a', 'up'), backend('b', 'unprobed')], draining: false }, { ready: false, status: 'not ready', reason: 'not probed yet: b' }],
  ['not probed beats minBackendsUp', { backends: [backend('a', 'up'), backend('b', 'unprobed')], minBackendsUp: 1, draining: false }, { ready: false, status: 'not ready', reason: 'not probed yet: b' }],
  ['a required one down', { backends: [backend('a', 'up'), backend('b', 'down')], draining: false }, { ready: false, status: 'not ready', reason: 'required backend(s) down: b' }],
  ['only an optional one down', { backends: [backend('a', 'up'), backend('b', 'down', false)], draining: false }, { ready: true, status: 'ready' }],
  ['minBackendsUp met, a required one down', { backends: [backend('a', 'up'), backend('b', 'down')], minBackendsUp: 1, draining: false }, { ready: true, status: 'ready' }],
  ['minBackendsUp not met', { backends: [backend('a', 'up'), backend('b', 'down', false)], minBackendsUp: 2, draining: false }, { ready: false, status: 'not ready', reason: '1 backend(s) up, minBackendsUp is 2' }],
  ['draining', { backends: [backend('a', 'up')], draining: true }, { ready: false, status: 'draining', reason: 'shutting down' }],
]

for (const [name, input, expected] of cases) {
  t.test(`${name} → ${expected.status}`, async (t) => {
    const verdict = readiness(input)
    t.match(verdict, expected)
    if (expected.reason === undefined) t.notOk('reason' in verdict, 'no reason when ready')
  })
}

t.test('the body names the down and unprobed backends', async (t) => {
  const verdict = readiness({ backends: [backend('a', 'down', false), backend('b', 'unprobed'), backend('c', 'up')], draining: false })
  t.same(verdict.notProbed, ['b'])
  t.same(verdict.down, [{ name: 'a', required: false, reason: 'cannot reach backend (ECONNREFUSED)' }])
  t.equal(verdict.up, 1)
  t.equal(verdict.backends.length, 3)
})
