// W3C trace context on MCP messages (TRACE-1, TRACE-2): parsing, where it is read from, how it is
// written for a backend. Table-driven.
import t from 'tap'
import { formatTraceparent, isValidTraceparent, readTraceContext, traceparentFields, withTraceHeaders, withTraceMeta } from '../../../src/protocol/trace-context.ts'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const SPAN = '00f067aa0ba902b7'
const VALID = `00-${TRACE}-${SPAN}-01`

t.test('isValidTraceparent / traceparentFields', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['version 00, sampled → parsed', VALID, true],
    ['a future version with more fields → parsed', `01-${TRACE}-${SPAN}-00-extra`, true],
    ['version 00 with more fields → invalid', `${VALID}-extra`, false],
    ['version ff → invalid', `ff-${TRACE}-${SPAN}-01`, false],
    ['all-zero trace id → invalid', `00-${'0'.repeat(32)}-${SPAN}-01`, false],
    ['all-zero span id → invalid', `00-${TRACE}-${'0'.repeat(16)}-01`, false],
    ['upper case → invalid', VALID.toUpperCase(), false],
    ['short trace id → invalid', `00-${TRACE.slice(1)}-${SPAN}-01`, false],
  ]
  for (const [name, value, ok] of cases) t.equal(isValidTraceparent(value), ok, name)
  t.same(traceparentFields(VALID), { traceId: TRACE, spanId: SPAN, flags: 1 })
  t.equal(formatTraceparent(TRACE, SPAN, 1), VALID, 'formatted back')
})

t.test('readTraceContext', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, string | string[]>, unknown]> = [
    ['nothing → undefined', {}, {}, undefined],
    ['_meta → its three keys', { traceparent: VALID, tracestate: 'a=b', baggage: 'k=v' }, {}, { traceparent: VALID, tracestate: 'a=b', baggage: 'k=v' }],
    ['headers only → the headers', {}, { traceparent: VALID, tracestate: 'a=b' }, { traceparent: VALID, tracestate: 'a=b', baggage: undefined }],
    ['both → _meta wins, nothing mixed', { traceparent: VALID }, { traceparent: `00-${TRACE}-${'1'.repeat(16)}-01`, tracestate: 'x=y' }, { traceparent: VALID, tracestate: undefined, baggage: undefined }],
    ['invalid traceparent → dropped with its tracestate', { traceparent: 'nope', tracestate: 'a=b', baggage: 'k=v' }, {}, { traceparent: undefined, tracestate: undefined, baggage: 'k=v' }],
    ['a non-string value → dropped', { traceparent: 42 }, {}, { traceparent: undefined, tracestate: undefined, baggage: undefined }],
    ['repeated header lines → joined', {}, { traceparent: VALID, baggage: ['a=1', 'b=2'] }, { traceparent: VALID, tracestate: undefined, baggage: 'a=1,b=2' }],
  ]
  for (const [name, meta, headers, expected] of cases) t.same(readTraceContext(meta, headers), expected, name)
})

t.test('withTraceMeta / withTraceHeaders → the three keys set, a missing one removed', async (t) => {
  const params = { name: 'x', _meta: { traceparent: 'old', baggage: 'secret=1', other: 1 } }
  const sent = withTraceMeta(params, { traceparent: VALID, tracestate: 'a=b' })
  t.same(sent, { name: 'x', _meta: { traceparent: VALID, tracestate: 'a=b', other: 1 } }, 'baggage removed, other keys kept')
  t.equal(params._meta.traceparent, 'old', 'the input is not changed')
  t.same(withTraceMeta({}, { traceparent: VALID }), { _meta: { traceparent: VALID } }, 'no _meta → one made')
  t.same(withTraceHeaders({ 'mcp-param-a': '1' }, { traceparent: VALID, baggage: 'k=v' }), { 'mcp-param-a': '1', traceparent: VALID, baggage: 'k=v' })
  t.same(withTraceHeaders(undefined, {}), {})
})
