// The reply memory budget (README "Limits"): bytes of replies buffered at once across backends,
// each reply through its own meter; a reply that would pass the budget fails alone, naming its
// backend; what it held is given back.
import t from 'tap'
import { BackendError } from '../../../../src/upstream/backend.ts'
import { meterBody, ReplyBudget } from '../../../../src/upstream/shared/reply-budget.ts'

t.test('meters hold and release against one budget', async (t) => {
  const budget = new ReplyBudget(1_000)
  const a = budget.meter('a')
  const b = budget.meter('b')
  a.hold(600)
  b.hold(400)
  t.equal(budget.inFlight, 1_000, 'two replies, 1000 bytes in flight: exactly the budget')
  const err = t.throws(() => b.hold(1)) as BackendError
  t.type(err, BackendError, 'one more byte → BackendError')
  t.match(err, { backend: 'b', reason: 'reply_budget', message: /reply from backend "b" stopped .*limits\.replyBytesInFlight/ })
  t.equal(budget.inFlight, 600, 'the failed reply gave its bytes back; a kept its own')
  b.hold(500)
  t.equal(budget.inFlight, 600, 'a failed (closed) meter counts nothing more')
  a.releaseHeld()
  t.equal(budget.inFlight, 0, 'an SSE event handed on → its bytes released')
  a.hold(10)
  a.close()
  a.close()
  t.equal(budget.inFlight, 0, 'close releases everything, once')
})

t.test('meterBody → every chunk held before it is passed on; the first over the budget stops the body', async (t) => {
  const budget = new ReplyBudget(10)
  const meter = budget.meter('x')
  const seen: string[] = []
  async function* chunks() {
    yield Buffer.from('12345')
    yield '67890'
    yield Buffer.from('!')
  }
  const failed = await (async () => {
    for await (const chunk of meterBody(chunks(), meter)) seen.push(String(chunk))
  })().catch((err: unknown) => err)
  t.match(failed, { name: 'BackendError', reason: 'reply_budget', backend: 'x' })
  t.same(seen, ['12345', '67890'], 'the chunk that did not fit was never passed on')
  t.equal(budget.inFlight, 0)
})
