// Sealed tokens (cursors PAGE-6, requestState MRTR-8/9): HMAC-protected, self-contained, expiring.
import { createHmac } from 'node:crypto'
import t from 'tap'
import { Sealer } from '../../../src/routing/seal.ts'

const SECRET = 'unit-secret'
const sealer = new Sealer(SECRET)

// A token with a valid MAC over an arbitrary body (what only the secret holder can make).
function forge(body: string, secret = SECRET): string {
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url')

t.test('seal then open → the same payload', async (t) => {
  const cases: Array<Record<string, unknown>> = [
    { k: 'tools', i: 1 },
    { k: 'templates', i: 0, c: 'backend-cursor' },
    { nested: { a: [1, 'two', null] }, unicode: 'é🙂' },
    {},
  ]
  for (const payload of cases) t.same(sealer.open(sealer.seal(payload)), payload, `${JSON.stringify(payload)} → round trip`)
})

t.test('seal → URL-safe and opaque', async (t) => {
  const token = sealer.seal({ k: 'tools', i: 1 })
  t.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'base64url body "." base64url MAC')
  t.equal(sealer.seal({ k: 'tools', i: 1 }), token, 'same payload → same token (deterministic)')
})

t.test('open rejects', async (t) => {
  const token = sealer.seal({ k: 'tools', i: 1 })
  const [body, mac] = token.split('.')
  const flipped = (text: string): string => (text[0] === 'A' ? 'B' : 'A') + text.slice(1)
  const cases: Array<[string, unknown]> = [
    ['a number', 42],
    ['undefined', undefined],
    ['an empty string', ''],
    ['no dot', body + mac],
    ['leading dot', `.${mac}`],
    ['tampered body', `${flipped(body)}.${mac}`],
    ['tampered MAC', `${body}.${flipped(mac)}`],
    ['truncated MAC', `${body}.${mac.slice(0, 10)}`],
    ['MAC from another secret', forge(body, 'other-secret')],
    ['body not base64 JSON', forge('not-json')],
    ['payload an array', forge(b64('[1,2]'))],
    ['payload a string', forge(b64('"x"'))],
    ['expired (exp in the past)', sealer.seal({ k: 'tools', exp: Date.now() - 1 })],
  ]
  for (const [name, input] of cases) t.equal(sealer.open(input), undefined, `${name} → undefined`)
})

t.test('open honours exp against the given clock', async (t) => {
  const token = sealer.seal({ k: 'state', exp: 1_000 })
  t.same(sealer.open(token, 999), { k: 'state', exp: 1_000 }, 'now 999, exp 1000 → open')
  t.same(sealer.open(token, 1_000), { k: 'state', exp: 1_000 }, 'now 1000, exp 1000 → open (expires after)')
  t.equal(sealer.open(token, 1_001), undefined, 'now 1001, exp 1000 → undefined')
  t.same(sealer.open(forge(b64('{"exp":"soon"}'))), { exp: 'soon' }, 'non-numeric exp → not an expiry')
})

t.test('two sealers with the same secret → interchangeable (any replica opens any token, RPC-8)', async (t) => {
  const other = new Sealer(SECRET)
  t.same(other.open(sealer.seal({ i: 3 })), { i: 3 })
  t.equal(new Sealer('different').open(sealer.seal({ i: 3 })), undefined, 'different secret → undefined')
})
