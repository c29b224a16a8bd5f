// Re-probes of a down backend on the shared backoff (ERA-3): one pending attempt, reset on success.
import { mock } from 'node:test'
import t from 'tap'
import { Reprober } from '../../../../src/upstream/shared/reprober.ts'

function setup(t: { teardown(fn: () => void): void }, results: boolean[]) {
  mock.timers.enable({ apis: ['setTimeout'] })
  const probes: number[] = []
  let clock = 0
  const reprober = new Reprober(async () => {
    probes.push(clock)
    return results.shift() ?? false
  })
  t.teardown(() => {
    reprober.dispose()
    mock.timers.reset()
  })
  // Advances the clock and lets the probe's promise settle.
  const advance = async (ms: number): Promise<void> => {
    clock += ms
    mock.timers.tick(ms)
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return { reprober, probes, advance }
}

t.test('failing probes → 500 ms, 1 s, 2 s apart', async (t) => {
  const { reprober, probes, advance } = setup(t, [])
  reprober.schedule()
  reprober.schedule()
  for (const ms of [500, 1_000, 2_000]) await advance(ms)
  t.same(probes, [500, 1_500, 3_500], 'one attempt per delay, doubling')
})

t.test('success → no further attempt; reset → the backoff starts over', async (t) => {
  const { reprober, probes, advance } = setup(t, [false, true])
  reprober.schedule()
  await advance(500)
  await advance(1_000)
  await advance(30_000)
  t.same(probes, [500, 1_500], 'stops after the successful probe')
  reprober.reset()
  reprober.schedule()
  await advance(500)
  t.same(probes, [500, 1_500, 32_000], 'after reset the first delay is 500 ms again')
})

t.test('dispose → nothing pending runs, schedule is ignored', async (t) => {
  const { reprober, probes, advance } = setup(t, [])
  reprober.schedule()
  reprober.dispose()
  reprober.schedule()
  await advance(60_000)
  t.same(probes, [])
})
