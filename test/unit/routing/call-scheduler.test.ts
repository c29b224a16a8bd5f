// Fair scheduling of one backend's calls (call-scheduler.ts): slots, a per-client limit, one FIFO
// queue per client served round robin, a bounded queue that sheds the longest queue first, a queue
// timeout (mocked timers), and aborts while waiting. Calls are deferred promises the test settles.
import { mock } from 'node:test'
import t from 'tap'
import { CallScheduler, type CallSchedulerOptions } from '../../../src/routing/call-scheduler.ts'
import { BackendError } from '../../../src/upstream/backend.ts'

// Lets settled promises run on (the scheduler hands slots on in microtasks).
async function tick(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

interface Probe {
  started: string[]
  finish(label: string): Promise<void>
  submit(client: string, label: string, signal?: AbortSignal): Promise<string>
}

function setup(options: Partial<CallSchedulerOptions> = {}): { scheduler: CallScheduler; probe: Probe } {
  const scheduler = new CallScheduler({ backend: 'b', slots: 1, perClient: 1, maxQueued: 100, queueTimeoutMs: 60_000, ...options })
  const started: string[] = []
  const ends = new Map<string, () => void>()
  const submit = (client: string, label: string, signal = new AbortController().signal): Promise<string> =>
    scheduler.run(client, signal, () => new Promise<string>((resolve) => {
      started.push(label)
      ends.set(label, () => resolve(label))
    }))
  // Settles one running call and lets the scheduler hand its slot on (microtasks only).
  const finish = async (label: string): Promise<void> => {
    ends.get(label)!()
    await tick()
  }
  return { scheduler, probe: { started, finish, submit } }
}

// setTimeout and Date.now move together (the scheduler compares deadlines with Date.now()).
function mockClock(t: { teardown(fn: () => void): void }): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] })
  t.teardown(() => mock.timers.reset())
}

async function reasonOf(call: Promise<unknown>): Promise<string> {
  try {
    await call
    return 'resolved'
  } catch (err) {
    return err instanceof BackendError ? `${err.reason} (${err.backend})` : String(err)
  }
}

t.test('one slot, client A floods, B and C call once → served A, B, C, A, A (round robin)', async (t) => {
  const { probe } = setup()
  const calls = [probe.submit('A', 'a1'), probe.submit('A', 'a2'), probe.submit('A', 'a3'), probe.submit('B', 'b1'), probe.submit('C', 'c1'), probe.submit('A', 'a4')]
  await tick()
  t.same(probe.started, ['a1'], 'one slot: a1 runs')
  for (const label of ['a1', 'b1', 'c1', 'a2', 'a3']) await probe.finish(label)
  t.same(probe.started, ['a1', 'b1', 'c1', 'a2', 'a3', 'a4'], 'B and C were not kept behind A\'s queue')
  await probe.finish('a4')
  t.same(await Promise.all(calls), ['a1', 'a2', 'a3', 'b1', 'c1', 'a4'])
})

t.test('perClient 2 of 4 slots → a flooding client holds 2, another client gets a slot at once', async (t) => {
  const { scheduler, probe } = setup({ slots: 4, perClient: 2 })
  for (let i = 1; i <= 10; i++) void probe.submit('A', `a${i}`).catch(() => undefined)
  await tick()
  t.same(probe.started, ['a1', 'a2'], 'A: 2 in flight')
  t.equal(scheduler.queued, 8, 'A: 8 waiting')
  void probe.submit('B', 'b1')
  await tick()
  t.same(probe.started, ['a1', 'a2', 'b1'], 'B runs at once: 2 slots were left')
})

t.test('queue full → the longest queue sheds its newest call; a client with the longest queue is refused itself', async (t) => {
  const { scheduler, probe } = setup({ slots: 1, perClient: 1, maxQueued: 4 })
  const a = [1, 2, 3, 4, 5].map((i) => probe.submit('A', `a${i}`))
  await tick()
  t.equal(scheduler.queued, 4, 'a1 runs, a2..a5 wait: full')
  t.equal(await reasonOf(probe.submit('A', 'a6')), 'queue_full (b)', 'A again → A is refused')
  const b1 = probe.submit('B', 'b1')
  t.equal(await reasonOf(a[4]), 'queue_full (b)', 'B arrives → A\'s newest (a5) is shed')
  const b2 = probe.submit('B', 'b2')
  t.equal(await reasonOf(a[3]), 'queue_full (b)', 'B again → a4 shed (A 2, B 2)')
  t.equal(await reasonOf(probe.submit('B', 'b3')), 'queue_full (b)', 'equal shares → B is refused')
  t.equal(scheduler.queued, 4)
  for (const label of ['a1', 'b1', 'a2', 'b2', 'a3']) await probe.finish(label)
  t.same(await Promise.all([a[0], a[1], a[2], b1, b2]), ['a1', 'a2', 'a3', 'b1', 'b2'])
})

t.test('queue timeout (mocked timers) → queue_timeout; the running call is not affected', async (t) => {
  mockClock(t)
  const { scheduler, probe } = setup({ queueTimeoutMs: 1_000 })
  const running = probe.submit('A', 'a1')
  const waiting = probe.submit('B', 'b1')
  await tick()
  mock.timers.tick(999)
  t.equal(scheduler.queued, 1, 'still waiting at 999 ms')
  mock.timers.tick(1)
  t.equal(await reasonOf(waiting), 'queue_timeout (b)', 'at 1000 ms → queue_timeout')
  t.equal(scheduler.queued, 0)
  await probe.finish('a1')
  t.equal(await running, 'a1')
})

// One timer serves every waiter: each times out at its own deadline, one served in time does not.
t.test('queue timeouts of waiters that entered at different times → each at its own deadline', async (t) => {
  mockClock(t)
  const { scheduler, probe } = setup({ queueTimeoutMs: 1_000, slots: 1, perClient: 1 })
  void probe.submit('A', 'a1')
  const first = probe.submit('B', 'b1')
  await tick()
  mock.timers.tick(400)
  const second = probe.submit('C', 'c1')
  const served = probe.submit('D', 'd1')
  await tick()
  mock.timers.tick(600)
  t.equal(await reasonOf(first), 'queue_timeout (b)', 'the first at 1000 ms')
  t.equal(scheduler.queued, 2, 'the later two still waiting')
  await probe.finish('a1')
  t.same(probe.started, ['a1', 'c1'], 'a free slot goes to the next waiter')
  mock.timers.tick(399)
  t.equal(scheduler.queued, 1, 'd1 still waiting at 1399 ms')
  mock.timers.tick(1)
  t.equal(await reasonOf(served), 'queue_timeout (b)', 'd1 at 1400 ms')
  t.equal(scheduler.queued, 0)
  await probe.finish('c1')
  t.equal(await second, 'c1', 'the served one is not timed out')
})

t.test('abort while waiting → aborted, removed from the queue; an aborted signal up front → refused at once', async (t) => {
  const { scheduler, probe } = setup()
  void probe.submit('A', 'a1')
  await tick()
  const controller = new AbortController()
  const waiting = probe.submit('B', 'b1', controller.signal)
  controller.abort()
  t.equal(await reasonOf(waiting), 'aborted (b)')
  t.equal(scheduler.queued, 0)
  t.equal(await reasonOf(probe.submit('C', 'c1', AbortSignal.abort())), 'aborted (b)')
  await probe.finish('a1')
  t.same(probe.started, ['a1'], 'neither ran')
})

t.test('a call that throws → its slot is released', async (t) => {
  const scheduler = new CallScheduler({ backend: 'b', slots: 1, perClient: 1, maxQueued: 10, queueTimeoutMs: 60_000 })
  const signal = new AbortController().signal
  await t.rejects(scheduler.run('A', signal, async () => { throw new Error('boom') }), /boom/)
  t.equal(await scheduler.run('A', signal, async () => 'next'), 'next', 'the slot was freed')
})
