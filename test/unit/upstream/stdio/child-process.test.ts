import { Writable } from 'node:stream'
import t from 'tap'
import { pino } from 'pino'
import { createStdinWriter, describeExit } from '../../../../src/upstream/stdio/child-process.ts'

// A stdin whose writes complete only when the test says so, with a tiny buffer.
function slowStdin() {
  const received: string[] = []
  const callbacks: Array<() => void> = []
  const stream = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk.toString('utf8'))
      callbacks.push(() => callback())
    },
  })
  return { stream, received, release: () => { for (const callback of callbacks.splice(0)) callback() } }
}

t.test('stdin writer: over the high-water mark, later lines wait for drain', async (t) => {
  const stdin = slowStdin()
  const writer = createStdinWriter(stdin.stream, pino({ level: 'silent' }))
  const states: string[] = []
  await writer.write('0123456789\n').then(() => states.push('first'))
  const second = writer.write('second\n').then(() => states.push('second'))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(stdin.received, ['0123456789\n'], 'the second line is held back')
  t.same(states, ['first'])
  stdin.release()
  await second
  t.same(stdin.received, ['0123456789\n', 'second\n'], 'sent after drain, in order')
})

t.test('stdin writer: lines queued in one tick → one write, in order', async (t) => {
  const stdin = slowStdin()
  const writer = createStdinWriter(stdin.stream, pino({ level: 'silent' }))
  await Promise.all([writer.write('a\n'), writer.write('b\n'), writer.write('c\n')])
  t.same(stdin.received, ['a\nb\nc\n'])
})

t.test('stdin writer: fail → queued and later writes rejected', async (t) => {
  const stdin = slowStdin()
  const writer = createStdinWriter(stdin.stream, pino({ level: 'silent' }))
  await writer.write('0123456789\n')
  const queued = writer.write('queued\n')
  writer.fail(new Error('child exited with code 1'))
  await t.rejects(queued, { message: 'child exited with code 1' })
  await t.rejects(writer.write('later\n'), { message: 'child exited with code 1' })
})

t.test('describeExit', async (t) => {
  t.equal(describeExit({ code: 1, signal: null }), 'exited with code 1')
  t.equal(describeExit({ code: null, signal: 'SIGKILL' }), 'exited on signal SIGKILL')
  t.equal(describeExit({ code: null, signal: null, error: new Error('spawn nope ENOENT') }), 'could not be started: spawn nope ENOENT')
})
