// The one per-call deadline (CANCEL-1/2/8): the caller's abort or the timeout, whichever first.
import { mock } from 'node:test'
import t from 'tap'
import { CallSignal } from '../../../../src/upstream/shared/call-signal.ts'

function useMockClock(t: { teardown(fn: () => void): void }): void {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
}

t.test('caller aborts → aborted with the caller\'s reason, not timed out', async (t) => {
  useMockClock(t)
  const caller = new AbortController()
  const deadline = new CallSignal(caller.signal, 1_000)
  caller.abort('client went away')
  t.equal(deadline.signal.aborted, true)
  t.equal(deadline.signal.reason, 'client went away')
  mock.timers.tick(1_000)
  t.equal(deadline.timedOut, false, 'the timer no longer counts')
})

t.test('timeout → aborted with a TimeoutError, timedOut', async (t) => {
  useMockClock(t)
  const deadline = new CallSignal(new AbortController().signal, 1_000)
  mock.timers.tick(999)
  t.equal(deadline.signal.aborted, false, '999 ms → still running')
  mock.timers.tick(1)
  t.equal(deadline.signal.aborted, true, '1000 ms → aborted')
  t.equal(deadline.timedOut, true)
  t.equal((deadline.signal.reason as DOMException).name, 'TimeoutError')
})

t.test('no caller signal → only the timeout aborts it', async (t) => {
  useMockClock(t)
  const deadline = new CallSignal(undefined, 10)
  mock.timers.tick(10)
  t.equal(deadline.timedOut, true)
})

t.test('already aborted caller → aborted at once, never timed out', async (t) => {
  useMockClock(t)
  const caller = new AbortController()
  caller.abort('early')
  const deadline = new CallSignal(caller.signal, 10)
  t.equal(deadline.signal.reason, 'early')
  mock.timers.tick(10)
  t.equal(deadline.timedOut, false)
})

t.test('dispose → neither the timeout nor the caller aborts it any more', async (t) => {
  useMockClock(t)
  const caller = new AbortController()
  const deadline = new CallSignal(caller.signal, 10)
  deadline.dispose()
  mock.timers.tick(10)
  caller.abort()
  t.equal(deadline.signal.aborted, false)
  t.equal(deadline.timedOut, false)
})
