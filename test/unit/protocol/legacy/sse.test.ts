// Priming event of a legacy POST stream (LEGACY-8).
import t from 'tap'
import { SseDecoder } from '../../../../src/protocol/sse.ts'
import { encodePrimingEvent, primingEventId } from '../../../../src/protocol/legacy/sse.ts'

t.test('priming event → an id and empty data, no message for a decoder', async (t) => {
  const id = primingEventId('abc_-')
  t.equal(id, 'abc_-.0')
  t.equal(encodePrimingEvent(id), 'id: abc_-.0\ndata:\n\n')
  t.same(new SseDecoder().push(encodePrimingEvent(id)), [], 'decoders skip it')
})
