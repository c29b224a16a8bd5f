// Log lines batched in front of the real destination (log-batch.ts): one write per batch, by size
// or after flushMs (mocked timers), in order, nothing lost on flushSync.
import { mock } from 'node:test'
import t from 'tap'
import { LogBatch } from '../../../src/observability/log-batch.ts'

function sink(): { writes: string[]; syncs: number; write(text: string): void; flushSync(): void } {
  const state = { writes: [] as string[], syncs: 0, write: (text: string) => void state.writes.push(text), flushSync: () => void state.syncs++ }
  return state
}

t.test('lines wait until batchChars are reached, then go out as one write, in order', async (t) => {
  const out = sink()
  const batch = new LogBatch(out, { batchChars: 10, flushMs: 60_000 })
  batch.write('aaa\n')
  batch.write('bbb\n')
  t.same(out.writes, [], 'nothing written below the batch size')
  batch.write('ccc\n')
  t.same(out.writes, ['aaa\nbbb\nccc\n'], 'one write at 12 characters')
  batch.write('d\n')
  batch.flushSync()
  t.same(out.writes, ['aaa\nbbb\nccc\n', 'd\n'], 'flushSync hands over the rest')
  t.equal(out.syncs, 1, 'and flushes the sink synchronously')
  batch.flush()
  t.equal(out.writes.length, 2, 'an empty flush writes nothing')
})

t.test('a waiting line goes out flushMs after it arrived (mocked timers)', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const out = sink()
  const batch = new LogBatch(out, { batchChars: 1_000, flushMs: 100 })
  batch.write('one\n')
  mock.timers.tick(50)
  batch.write('two\n')
  mock.timers.tick(49)
  t.same(out.writes, [], 'not yet at 99 ms')
  mock.timers.tick(1)
  t.same(out.writes, ['one\ntwo\n'], 'both at 100 ms after the first')
  batch.write('three\n')
  mock.timers.tick(100)
  t.same(out.writes, ['one\ntwo\n', 'three\n'], 'the timer is armed again for the next line')
})
