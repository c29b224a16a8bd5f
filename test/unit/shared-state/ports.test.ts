// The in-memory implementations of the legacy-session ports: ended sessions, session registry,
// hand-off.
import t from 'tap'
import { MemoryEndedSessions } from '../../../src/shared-state/ended-sessions.ts'
import { MemoryHandOff } from '../../../src/shared-state/hand-off.ts'
import { MAX_SUBSCRIPTIONS_PER_SESSION, MemorySessionRegistry } from '../../../src/shared-state/session-registry.ts'

t.test('MemoryEndedSessions: ended until the session would expire', async (t) => {
  let now = 0
  const ended = new MemoryEndedSessions(() => now)
  t.equal(await ended.isEnded('s1'), false, 'not ended → false')
  await ended.end('s1', 1_000)
  t.equal(await ended.isEnded('s1'), true, 'ended → true')
  t.equal(await ended.isEnded('s2'), false, 'another session → false')
  now = 1_000
  t.equal(await ended.isEnded('s1'), false, 'past its expiry → forgotten (its id is refused as expired anyway)')
})

t.test('MemorySessionRegistry: level, subscriptions, one stream, forget', async (t) => {
  const registry = new MemorySessionRegistry()
  const exp = Date.now() + 60_000
  t.same(await registry.read('s'), { subscriptions: [] }, 'unknown → empty')
  await registry.setLogLevel('s', 'warning', exp)
  t.same(await registry.subscribe('s', 'a://1', exp), ['a://1'])
  t.same(await registry.subscribe('s', 'a://2', exp), ['a://1', 'a://2'])
  t.same(await registry.subscribe('s', 'a://1', exp), ['a://1', 'a://2'], 'subscribing twice → once')
  t.same(await registry.unsubscribe('s', 'a://1'), ['a://2'])
  t.same(await registry.unsubscribe('other', 'a://1'), [], 'unknown session → none')
  t.same(await registry.read('s'), { logLevel: 'warning', subscriptions: ['a://2'] })
  t.equal(await registry.claimStream('s', exp), true, 'first stream → claimed')
  t.equal(await registry.claimStream('s', exp), false, 'second stream → refused (LEGACY-10)')
  await registry.releaseStream('s')
  t.equal(await registry.claimStream('s', exp), true, 'after release → claimed again')
  await registry.forget('s')
  t.same(await registry.read('s'), { subscriptions: [] }, 'forgotten → empty')
})

t.test('MemorySessionRegistry: at most MAX_SUBSCRIPTIONS_PER_SESSION', async (t) => {
  const registry = new MemorySessionRegistry()
  const exp = Date.now() + 60_000
  for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SESSION; i++) await registry.subscribe('s', `a://${i}`, exp)
  t.equal(await registry.subscribe('s', 'a://one-more', exp), undefined, 'over the limit → undefined')
  t.ok(await registry.subscribe('s', 'a://0', exp), 'an existing one → still fine')
})

t.test('MemoryHandOff: one waiter per key, one delivery, withdrawal', async (t) => {
  const handOff = new MemoryHandOff()
  const got: unknown[] = []
  const withdraw = handOff.expect('k', (message) => got.push(message))
  t.equal(await handOff.deliver('other', { a: 1 }), false, 'nobody waits → false')
  t.equal(await handOff.deliver('k', { a: 2 }), true, 'waiter → true')
  t.equal(await handOff.deliver('k', { a: 3 }), false, 'delivered once')
  t.same(got, [{ a: 2 }])
  withdraw()
  const stop = handOff.expect('j', () => t.fail('withdrawn waiters get nothing'))
  stop()
  t.equal(await handOff.deliver('j', {}), false, 'withdrawn → false')
  t.equal(handOff.size, 0, 'nothing left behind')
})
