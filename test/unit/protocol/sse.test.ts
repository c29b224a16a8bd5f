// SSE framing (SSE-5, SSE-8): the encoder and the incremental decoder used on backend streams.
import t from 'tap'
import { SSE_KEEP_ALIVE, SseDecoder, encodeSseEvent } from '../../../src/protocol/sse.ts'

t.test('encodeSseEvent', async (t) => {
  t.equal(encodeSseEvent('{"a":1}'), 'data: {"a":1}\n\n', '{"a":1} → one data line and a blank line')
  t.equal(SSE_KEEP_ALIVE, ':\n\n', 'keep-alive → a comment line')
})

// Each case: chunks fed in order, then end(); the events seen along the way.
t.test('SseDecoder', async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    ['one event', ['data: {"a":1}\n\n'], ['{"a":1}']],
    ['two events in one chunk', ['data: 1\n\ndata: 2\n\n'], ['1', '2']],
    ['event split across chunks', ['da', 'ta: {"a"', ':1}\n', '\n'], ['{"a":1}']],
    ['CRLF line endings', ['data: x\r\n\r\n'], ['x']],
    ['CRLF split between chunks', ['data: x\r', '\n\r', '\n'], ['x']],
    ['CR-only line endings', ['data: x\r\rdata: y\r\r'], ['x', 'y']],
    ['no space after colon', ['data:x\n\n'], ['x']],
    ['multi-line data joined with \\n', ['data: a\ndata: b\n\n'], ['a\nb']],
    ['comments skipped (SSE-5)', [':\n\n: keep-alive\n\ndata: x\n\n'], ['x']],
    ['id, event and retry fields skipped', ['id: 7\nevent: message\nretry: 10\ndata: x\n\n'], ['x']],
    ['priming event with empty data dropped', ['id: 0\ndata:\n\n', 'data: x\n\n'], ['x']],
    ['blank lines without data ignored', ['\n\n\n'], []],
    ['final event without its blank line → flushed at end', ['data: last'], ['last']],
    ['final data line with newline but no blank line → flushed at end', ['data: last\n'], ['last']],
  ]
  for (const [name, chunks, expected] of cases) {
    const decoder = new SseDecoder()
    const seen = chunks.flatMap((chunk) => decoder.push(chunk))
    seen.push(...decoder.end())
    t.same(seen, expected, `${name} → ${JSON.stringify(expected)}`)
  }
})

t.test('SseDecoder events are returned as soon as their blank line arrives', async (t) => {
  const decoder = new SseDecoder()
  t.same(decoder.push('data: 1\n'), [], 'data line alone → nothing yet')
  t.same(decoder.push('\n'), ['1'], 'blank line → the event')
})

t.test('SseDecoder with a size limit', async (t) => {
  const decoder = new SseDecoder(16)
  t.same(decoder.push('data: 0123456\n\n'), ['0123456'], 'event under the limit → decoded')
  t.throws(() => decoder.push(`data: ${'x'.repeat(20)}`), RangeError, 'unterminated line over the limit → RangeError')
})

t.test('SseDecoder gives the same events however the stream is split', async (t) => {
  const stream = 'id: 1\r\ndata: {"a":1}\r\n\r\n: comment\ndata: x\ndata: y\n\ndata: z\r\rdata: last\n\n'
  const expected = ['{"a":1}', 'x\ny', 'z', 'last']
  for (const size of [1, 2, 3, 5, 7, 11, stream.length]) {
    const decoder = new SseDecoder()
    const seen: string[] = []
    for (let i = 0; i < stream.length; i += size) seen.push(...decoder.push(stream.slice(i, i + size)))
    seen.push(...decoder.end())
    t.same(seen, expected, `chunks of ${size} characters → the same ${expected.length} events`)
  }
})

t.test('SseDecoder keeps a long line as pieces until it ends', async (t) => {
  const line = 'x'.repeat(4 * 1024 * 1024)
  const decoder = new SseDecoder()
  const chunk = 64 * 1024
  const seen: string[] = decoder.push('data: ')
  for (let i = 0; i < line.length; i += chunk) seen.push(...decoder.push(line.slice(i, i + chunk)))
  t.same(seen, [], '4 MiB line without its end → no event yet')
  const events = decoder.push('\n\n')
  t.equal(events.length, 1, 'end of line and blank line → one event')
  t.equal(events[0].length, line.length, 'the event is the whole 4 MiB line')
})

t.test('SseDecoder limit counts a line split over chunks', async (t) => {
  const decoder = new SseDecoder(32)
  decoder.push('data: ')
  decoder.push('x'.repeat(20))
  t.throws(() => decoder.push('x'.repeat(20)), RangeError, 'pieces over the limit together → RangeError')
  const fresh = new SseDecoder(32)
  t.same([...fresh.push(': twenty characters!\n'), ...fresh.push(`data: ${'y'.repeat(20)}\n\n`)], ['y'.repeat(20)], 'a comment line does not count toward the next event → decoded')
})
