import t from 'tap'
import { DEFAULT_STDIO_TUNING, computeRestartDelayMs } from '../../../../src/upstream/stdio/stdio-tuning.ts'

t.test('restart backoff: 250 ms doubling to 30 s (STDIO-9)', async (t) => {
  const delays = [0, 1, 2, 3, 6, 7, 8, 100, 10_000].map((failures) => computeRestartDelayMs(failures, DEFAULT_STDIO_TUNING))
  t.same(delays, [250, 500, 1_000, 2_000, 16_000, 30_000, 30_000, 30_000, 30_000])
})

t.test('defaults are frozen', async (t) => {
  t.ok(Object.isFrozen(DEFAULT_STDIO_TUNING))
})
