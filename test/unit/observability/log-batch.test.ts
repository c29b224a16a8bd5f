// Log lines batched in front of the real destination (log-batch.ts): one write per batch, by size
// or after flushMs (mocked timers), in order, nothing lost on flushSync; settle waits for the sink.
import { EventEmitter, once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mock } from 'node:test'
import t from 'tap'
import { bufferDestination, LogBatch } from '../../../src/observability/log-batch.ts'

function sink(): { writes: string[]; syncs: number; write(chunk: Buffer): void; flushSync(): void } {
  const state = { writes: [] as string[], syncs: 0, write: (chunk: Buffer) => void state.writes.push(chunk.toString('utf8')), flushSync: () => void state.syncs++ }
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

// The planned exit's settle: a batch the sink is still writing (sonic-boom on the thread pool) must
// land before what flushSync writes afterwards, or the last lines come out of order.
t.test('settle waits for the sink to drain what it is writing, then flushes synchronously', async (t) => {
  const events = new EventEmitter()
  const order: string[] = []
  const out = { write: (chunk: Buffer) => void order.push(`write ${chunk.toString('utf8').trim()}`), flushSync: () => void order.push('flushSync'), on: events.on.bind(events), once: events.once.bind(events), off: events.off.bind(events) }
  const batch = new LogBatch(out, { batchChars: 1, flushMs: 60_000 })
  batch.write('first\n')
  const settled = batch.settle(60_000).then(() => order.push('settled'))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(order, ['write first'], 'no synchronous flush while the sink is still writing')
  events.emit('drain')
  await settled
  t.same(order, ['write first', 'flushSync', 'settled'], 'flushSync once the sink drained')
  t.equal(events.listenerCount('drain'), 1, 'only the batch\'s own drain listener is left')
})

t.test('settle gives up waiting after its limit (a blocked stdout) and still flushes', async (t) => {
  const events = new EventEmitter()
  const out = Object.assign(sink(), { on: events.on.bind(events), once: events.once.bind(events), off: events.off.bind(events) })
  const batch = new LogBatch(out, { batchChars: 1, flushMs: 60_000 })
  batch.write('stuck\n')
  await batch.settle(20)
  t.equal(out.syncs, 1, 'flushed after the limit')
  t.equal(events.listenerCount('drain'), 1, 'its waiting listener removed')
})

t.test('settle with real sonic-boom (async): every line in the file, in order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'log-batch-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'out.log')
  const destination = bufferDestination(file)
  await once(destination, 'ready')
  const batch = new LogBatch(destination, { batchChars: 4096, flushMs: 60_000 })
  const lines = Array.from({ length: 5000 }, (_, i) => `${JSON.stringify({ n: i, pad: 'x'.repeat(40) })}\n`)
  for (const line of lines) batch.write(line)
  await batch.settle(5_000)
  t.equal(readFileSync(file, 'utf8'), lines.join(''), 'all 5,000 lines, in order')
  destination.end()
})
