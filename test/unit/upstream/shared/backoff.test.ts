// The one backoff rule (STDIO-9, SUB-11, ERA-3): delays by attempt, capped, optionally jittered.
import { mock } from 'node:test'
import t from 'tap'
import { computeBackoffMs, REPROBE_BACKOFF, startTimer } from '../../../../src/upstream/shared/backoff.ts'

t.test('computeBackoffMs', async (t) => {
  const cases: Array<{ name: string; attempt: number; policy: Parameters<typeof computeBackoffMs>[1]; random?: number; delayMs: number }> = [
    { name: 'reprobe, attempt 0 → 500 ms', attempt: 0, policy: REPROBE_BACKOFF, delayMs: 500 },
    { name: 'reprobe, attempt 1 → 1 s', attempt: 1, policy: REPROBE_BACKOFF, delayMs: 1_000 },
    { name: 'reprobe, attempt 5 → 16 s', attempt: 5, policy: REPROBE_BACKOFF, delayMs: 16_000 },
    { name: 'reprobe, attempt 6 → capped at 30 s', attempt: 6, policy: REPROBE_BACKOFF, delayMs: 30_000 },
    { name: 'attempt 10 000 → capped, finite', attempt: 10_000, policy: REPROBE_BACKOFF, delayMs: 30_000 },
    { name: 'negative attempt → the initial delay', attempt: -3, policy: REPROBE_BACKOFF, delayMs: 500 },
    { name: 'jitter 0.5, random 0 → the full delay', attempt: 2, policy: { initialMs: 100, maxMs: 1_000, jitterRatio: 0.5 }, random: 0, delayMs: 400 },
    { name: 'jitter 0.5, random 0.5 → a quarter off', attempt: 2, policy: { initialMs: 100, maxMs: 1_000, jitterRatio: 0.5 }, random: 0.5, delayMs: 300 },
    { name: 'jitter 1, random 0.999 → close to 0', attempt: 0, policy: { initialMs: 1_000, maxMs: 1_000, jitterRatio: 1 }, random: 0.999, delayMs: 1 },
    { name: 'jitter applies after the cap', attempt: 20, policy: { initialMs: 100, maxMs: 1_000, jitterRatio: 0.2 }, random: 0.5, delayMs: 900 },
  ]
  for (const entry of cases) {
    const random = entry.random === undefined ? undefined : () => entry.random as number
    t.equal(computeBackoffMs(entry.attempt, entry.policy, random), entry.delayMs, entry.name)
  }
  t.ok(Object.isFrozen(REPROBE_BACKOFF), 'REPROBE_BACKOFF → frozen')
})

t.test('startTimer → fires once after the delay', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  let fired = 0
  startTimer(50, () => { fired++ })
  mock.timers.tick(49)
  t.equal(fired, 0, '49 ms → not yet')
  mock.timers.tick(1)
  t.equal(fired, 1, '50 ms → fired')
  mock.timers.tick(1_000)
  t.equal(fired, 1, 'once only')
})

t.test('startTimer on the real clock → not ref()d', async (t) => {
  const timer = startTimer(60_000, () => t.fail('must not fire'))
  t.equal(timer.hasRef(), false, 'unref()d')
  clearTimeout(timer)
})
