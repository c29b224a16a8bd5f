import t from 'tap'
import { computeBackoffMs } from '../../../../src/upstream/shared/backoff.ts'
import { DEFAULT_STDIO_TUNING, toRestartBackoff } from '../../../../src/upstream/stdio/stdio-tuning.ts'

t.test('restart backoff: 250 ms doubling to 30 s (STDIO-9)', async (t) => {
  const policy = toRestartBackoff(DEFAULT_STDIO_TUNING)
  t.same(policy, { initialMs: 250, maxMs: 30_000 }, 'defaults → 250 ms to 30 s, no jitter')
  const delays = [0, 1, 2, 3, 6, 7, 8, 100, 10_000].map((failures) => computeBackoffMs(failures, policy))
  t.same(delays, [250, 500, 1_000, 2_000, 16_000, 30_000, 30_000, 30_000, 30_000])
})

t.test('defaults are frozen', async (t) => {
  t.ok(Object.isFrozen(DEFAULT_STDIO_TUNING))
})
