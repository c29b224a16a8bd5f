// CallCancel: the front door's cancellation of a call (CANCEL-1), as the layers below see it.
import t from 'tap'
import { CallCancel } from '../../../../src/upstream/shared/cancel-signal.ts'
import { CallSignal } from '../../../../src/upstream/shared/call-signal.ts'

t.test('listeners hear the abort once, in order; a removed or late one does not', async (t) => {
  const cancel = new CallCancel()
  const heard: string[] = []
  const removed = (): void => void heard.push('removed')
  cancel.addEventListener('abort', () => heard.push('first'))
  cancel.addEventListener('abort', removed)
  cancel.addEventListener('abort', () => heard.push('second'), { once: true })
  cancel.removeEventListener('abort', removed)
  t.equal(cancel.aborted, false)
  cancel.abort()
  cancel.abort(new Error('again'))
  cancel.addEventListener('abort', () => heard.push('late'))
  t.same(heard, ['first', 'second'])
  t.equal(cancel.aborted, true)
  t.match(cancel.reason, { name: 'AbortError' }, 'the reason an AbortSignal would give')
})

t.test('a given reason is kept', async (t) => {
  const cancel = new CallCancel()
  const reason = new Error('client went away')
  cancel.abort(reason)
  t.equal(cancel.reason, reason)
})

t.test('a call deadline follows it: aborted with its reason, and let go once disposed', async (t) => {
  const cancel = new CallCancel()
  const deadline = new CallSignal(cancel, 60_000)
  const reasons: unknown[] = []
  deadline.onAbort((reason) => reasons.push(reason))
  const reason = new Error('cancelled')
  cancel.abort(reason)
  t.same(reasons, [reason])
  t.equal(deadline.signal.aborted, true, 'an AbortSignal made afterwards is aborted too')
  t.equal(deadline.signal.reason, reason)
  t.equal(deadline.timedOut, false)
  const other = new CallCancel()
  const disposed = new CallSignal(other, 60_000)
  disposed.onAbort(() => t.fail('a disposed deadline does not hear the caller'))
  disposed.dispose()
  other.abort()
  t.equal(disposed.aborted, false)
})

t.test('an already cancelled call: the deadline is aborted at once and its listener hears it', async (t) => {
  const cancel = new CallCancel()
  cancel.abort(new Error('before'))
  const deadline = new CallSignal(cancel, 60_000)
  let heard: unknown
  deadline.onAbort((reason) => { heard = reason })
  t.match(heard, { message: 'before' })
})
