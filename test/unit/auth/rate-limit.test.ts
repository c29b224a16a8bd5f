// Token buckets (injected clock, no waiting) and the client address behind a proxy.
import t from 'tap'
import { clientAddress, MemoryTokenBuckets } from '../../../src/auth/rate-limit.ts'

t.test('a bucket: burst, then the refill rate', async (t) => {
  let now = 1_000_000
  const buckets = new MemoryTokenBuckets({ requestsPerMinute: 60, burst: 3, now: () => now })
  const taken = [1, 2, 3].map(() => buckets.takeNow('alice').allowed)
  t.same(taken, [true, true, true], 'burst of 3 → allowed')
  const refused = buckets.takeNow('alice')
  t.same(refused, { allowed: false, retryAfterS: 1, remaining: 0 }, '4th → refused, retry after 1 s (60/min)')
  t.ok(buckets.takeNow('bob').allowed, 'another key → its own bucket')
  now += 500
  t.notOk(buckets.takeNow('alice').allowed, 'half a second later → still refused')
  now += 500
  t.ok(buckets.takeNow('alice').allowed, 'a second later → one more')
  now += 3_600_000
  t.equal(buckets.takeNow('alice').remaining, 2, 'after an hour → full again, never above burst')
  t.same(await buckets.take('carol'), { allowed: true, retryAfterS: 0, remaining: 2 }, 'the async port answers the same')
})

t.test('Retry-After rounds up', async (t) => {
  const buckets = new MemoryTokenBuckets({ requestsPerMinute: 1, burst: 1, now: () => 0 })
  buckets.takeNow('k')
  t.equal(buckets.takeNow('k').retryAfterS, 60, '1/min, empty → 60 s')
})

t.test('bounded: refilled buckets go first, then the oldest', async (t) => {
  let now = 0
  const buckets = new MemoryTokenBuckets({ requestsPerMinute: 60, burst: 2, now: () => now, maxBuckets: 3 })
  for (const key of ['a', 'b', 'c']) buckets.takeNow(key)
  now += 10_000
  buckets.takeNow('d')
  t.equal(buckets.size, 1, 'all refilled → dropped, only d left')
  buckets.takeNow('e')
  buckets.takeNow('f')
  buckets.takeNow('g')
  t.equal(buckets.size, 3, 'all busy → the oldest dropped, size stays 3')
})

t.test('clientAddress', async (t) => {
  const cases: Array<[string, [string | undefined, string | string[] | undefined, boolean], string]> = [
    ['no proxy trust → socket address', ['10.0.0.1', '1.2.3.4', false], '10.0.0.1'],
    ['trusted, one entry', ['10.0.0.1', '1.2.3.4', true], '1.2.3.4'],
    ['trusted, forged entries before ours → the last', ['10.0.0.1', '6.6.6.6, 1.2.3.4', true], '1.2.3.4'],
    ['trusted, header repeated', ['10.0.0.1', ['6.6.6.6', '1.2.3.4'], true], '1.2.3.4'],
    ['trusted, no header → socket', ['10.0.0.1', undefined, true], '10.0.0.1'],
    ['trusted, empty header → socket', ['10.0.0.1', ' , ', true], '10.0.0.1'],
    ['no socket address', [undefined, undefined, false], 'unknown'],
  ]
  for (const [name, args, expected] of cases) t.equal(clientAddress(...args), expected, `${name} → ${expected}`)
})
