// Entries expire at their time; expired ones are swept on writes, at most once per interval.
import t from 'tap'
import { ExpiringMap, SWEEP_INTERVAL_MS } from '../../../src/shared-state/expiring-map.ts'

t.test('get/set/delete with expiry', async (t) => {
  let now = 1_000
  const map = new ExpiringMap<string, number>(() => now)
  map.set('a', 1, 2_000)
  const cases: Array<[number, number | undefined]> = [[1_000, 1], [1_999, 1], [2_000, undefined], [5_000, undefined]]
  for (const [at, expected] of cases) {
    now = at
    t.equal(map.get('a'), expected, `at ${at} → ${expected}`)
  }
  map.set('b', 2, 10_000)
  t.ok(map.delete('b'), 'delete → true')
  t.equal(map.get('b'), undefined, 'deleted → gone')
})

t.test('expired entries are swept on a later write', async (t) => {
  let now = 0
  const map = new ExpiringMap<string, number>(() => now)
  for (let i = 0; i < 10; i++) map.set(`k${i}`, i, 100)
  t.equal(map.size, 10)
  now = SWEEP_INTERVAL_MS + 1
  map.set('fresh', 1, now + 100)
  t.equal(map.size, 1, 'only the live entry stays')
})
