// Sealed tokens (cursors PAGE-6, requestState MRTR-8/9, session ids): AES-256-GCM, self-contained,
// expiring, openable by every replica that shares the secret (RPC-8).
import t from 'tap'
import { MIN_SECRET_BYTES, Sealer } from '../../../src/routing/seal.ts'

const SECRET = 'unit-secret-unit-secret-unit-secret'
const sealer = new Sealer(SECRET)

// Flips one bit of the decoded token at `index` (negative counts from the end).
function flipByte(token: string, index: number): string {
  const raw = Buffer.from(token, 'base64url')
  const at = index < 0 ? raw.length + index : index
  raw[at] ^= 0x01
  return raw.toString('base64url')
}

t.test('seal then open → the same payload', async (t) => {
  const cases: Array<Record<string, unknown>> = [
    { k: 'tools', i: 1 },
    { k: 'templates', i: 0, c: 'backend-cursor' },
    { nested: { a: [1, 'two', null] }, unicode: 'é🙂' },
    {},
  ]
  for (const payload of cases) t.same(sealer.open(sealer.seal(payload)), payload, `${JSON.stringify(payload)} → round trip`)
})

t.test('seal → URL-safe, visible ASCII and opaque', async (t) => {
  const token = sealer.seal({ secretField: 'backend-state-value' })
  t.match(token, /^[A-Za-z0-9_-]+$/, 'base64url only (visible ASCII, LEGACY-4)')
  t.notMatch(Buffer.from(token, 'base64url').toString('latin1'), /backend-state-value/, 'payload not readable inside the token')
  t.not(sealer.seal({ k: 'tools', i: 1 }), sealer.seal({ k: 'tools', i: 1 }), 'same payload twice → different tokens (random IV)')
  t.ok(sealer.seal({ k: 'tools', o: 500, d: 'abcdefghijklmnop' }).length < 120, 'a cursor stays under 120 characters')
})

t.test('open rejects', async (t) => {
  const token = sealer.seal({ k: 'tools', i: 1 })
  const cases: Array<[string, unknown]> = [
    ['a number', 42],
    ['undefined', undefined],
    ['an empty string', ''],
    ['garbage', 'not-a-token'],
    ['a token with a dot appended', `${token}.`],
    ['version byte changed', flipByte(token, 0)],
    ['IV changed', flipByte(token, 3)],
    ['ciphertext changed', flipByte(token, 20)],
    ['tag changed', flipByte(token, -1)],
    ['truncated', token.slice(0, -4)],
    ['sealed with another secret', new Sealer('another-secret-another-secret-xx').seal({ k: 'tools', i: 1 })],
    ['expired (ttl 0 in the past)', sealer.seal({ k: 'tools' }, -1)],
    ['payload exp in the past', sealer.seal({ k: 'tools', exp: Date.now() - 1 })],
  ]
  for (const [name, input] of cases) t.equal(sealer.open(input), undefined, `${name} → undefined`)
})

t.test('open honours the token expiry and a payload exp against the given clock', async (t) => {
  const now = Date.now()
  const token = sealer.seal({ k: 'state' }, 1_000)
  t.same(sealer.open(token, now + 500), { k: 'state' }, 'before the expiry → open')
  t.equal(sealer.open(token, now + 60_000), undefined, 'long after the expiry → undefined')
  const withExp = sealer.seal({ k: 'state', exp: now + 100 })
  t.same(sealer.open(withExp, now), { k: 'state', exp: now + 100 }, 'payload exp ahead → open')
  t.equal(sealer.open(withExp, now + 101), undefined, 'payload exp passed → undefined')
  t.same(sealer.open(sealer.seal({ exp: 'soon' })), { exp: 'soon' }, 'non-numeric exp → not an expiry')
})

t.test('default lifetime from the options', async (t) => {
  const short = new Sealer(SECRET, { ttlMs: 1_000 })
  const token = short.seal({ i: 1 })
  t.same(sealer.open(token), { i: 1 }, 'same secret, other instance → open')
  t.equal(sealer.open(token, Date.now() + 5_000), undefined, 'past the configured lifetime → undefined')
})

t.test('a secret under MIN_SECRET_BYTES → RangeError; exactly that many bytes → accepted', async (t) => {
  t.throws(() => new Sealer('x'.repeat(MIN_SECRET_BYTES - 1)), RangeError, `${MIN_SECRET_BYTES - 1} bytes → refused`)
  t.throws(() => new Sealer(''), RangeError, 'empty → refused')
  // 16 two-byte characters are 32 bytes: the limit is in bytes, not characters.
  t.doesNotThrow(() => new Sealer('é'.repeat(MIN_SECRET_BYTES / 2)), `${MIN_SECRET_BYTES} UTF-8 bytes → accepted`)
})

t.test('two sealers with the same secret → interchangeable (any replica opens any token, RPC-8)', async (t) => {
  const other = new Sealer(SECRET)
  t.same(other.open(sealer.seal({ i: 3 })), { i: 3 })
  t.equal(new Sealer('different-different-different-different').open(sealer.seal({ i: 3 })), undefined, 'different secret → undefined')
})
