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
