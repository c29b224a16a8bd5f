// The in-memory replay store (MRTR-9 single use): an id is claimed once until its expiry; expired
// claims are swept, so memory follows the tokens claimed within one lifetime.
import t from 'tap'
import { MemoryReplayStore } from '../../../src/routing/replay-store.ts'

t.test('claim → true the first time, false for the same id again, true for another id', async (t) => {
  const store = new MemoryReplayStore({ now: () => 1_000 })
  t.equal(await store.claim('a', 2_000), true, 'first claim of a → true')
  t.equal(await store.claim('a', 2_000), false, 'a again → false (a replay)')
  t.equal(await store.claim('b', 2_000), true, 'b → true')
})

t.test('a claim past its expiry → forgotten (the token no longer opens anyway)', async (t) => {
  let now = 1_000
  const store = new MemoryReplayStore({ now: () => now })
  await store.claim('a', 1_500)
  now = 1_501
  t.equal(await store.claim('a', 3_000), true, 'after expiry → claimable (the sealer refuses such a token first)')
})

t.test('many expired claims → swept once the map has grown, live ones kept', async (t) => {
  let now = 0
  const store = new MemoryReplayStore({ now: () => now })
  await store.claim('live', 1_000_000)
  for (let i = 0; i < 1_023; i++) await store.claim(`old-${i}`, 10)
  now = 100
  for (let i = 0; i < 10; i++) await store.claim(`new-${i}`, 1_000_000)
  t.ok(store.size <= 11, `expired ids swept (size ${store.size})`)
  t.equal(await store.claim('live', 1_000_000), false, 'a live claim survives the sweep')
})
