// The legacy session id's payload (LEGACY-4): round trip, refusal of anything else, compactness.
import t from 'tap'
import { Sealer } from '../../../../src/routing/seal.ts'
import { MAX_CLIENT_INFO_CHARS, decodeSessionClaims, encodeSessionClaims, readClientInfo, type SessionClaims } from '../../../../src/protocol/legacy/session-token.ts'

const CLAIMS: SessionClaims = {
  id: 'Zm9vYmFyYmF6cXV4cXV1eA',
  version: '2025-11-25',
  clientFlags: ['r', 's', 'ef'],
  clientInfo: { name: 'claude-code', version: '2.0.14' },
  principal: 'anonymous',
  issuedAt: 1_760_000_000_000,
  expiresAt: 1_760_086_400_000,
}

t.test('encode → decode round trip', async (t) => {
  t.same(decodeSessionClaims(encodeSessionClaims(CLAIMS)), CLAIMS)
})

t.test('decodeSessionClaims refuses what is not a session of this format', async (t) => {
  const good = encodeSessionClaims(CLAIMS)
  const cases: Array<[string, Record<string, unknown> | undefined]> = [
    ['undefined (MAC failed)', undefined],
    ['a sealed requestState', { v: 1, m: 'tools/call', n: 'x', b: 'y', p: 'anonymous', s: 'state', exp: 1 }],
    ['a sealed cursor', { l: 'tools', o: 3, exp: 1 }],
    ['another kind', { ...good, k: 'cursor' }],
    ['another format', { ...good, f: 2 }],
    ['an unsupported version', { ...good, pv: '2026-07-28' }],
    ['an unknown capability flag', { ...good, c: ['r', 'zz'] }],
    ['flags not a list', { ...good, c: 'r' }],
    ['no id', { ...good, i: undefined }],
    ['no client name', { ...good, n: 7 }],
    ['no principal', { ...good, p: undefined }],
    ['expiry not a number', { ...good, exp: 'soon' }],
  ]
  for (const [name, payload] of cases) t.equal(decodeSessionClaims(payload), undefined, `${name} → undefined`)
})

t.test('sealed: visible ASCII only and well under 1 KB for common clients', async (t) => {
  const sealer = new Sealer('a-secret-of-at-least-32-bytes-length!')
  const token = sealer.seal(encodeSessionClaims(CLAIMS))
  t.match(token, /^[\x21-\x7e]+$/, 'visible ASCII (LEGACY-4)')
  t.ok(token.length < 400, `${token.length} chars for a typical client`)
  const long = { ...CLAIMS, clientInfo: readClientInfo({ name: 'n'.repeat(500), version: 'v'.repeat(500) })! }
  const longToken = sealer.seal(encodeSessionClaims(long))
  t.ok(longToken.length < 1024, `${longToken.length} chars with clientInfo at the cap`)
  t.same(decodeSessionClaims(sealer.open(token, CLAIMS.issuedAt)), CLAIMS, 'opens with the same secret')
  t.equal(new Sealer('another-secret-of-at-least-32-bytes').open(token, CLAIMS.issuedAt), undefined, 'another secret → refused')
  t.equal(sealer.open(token, CLAIMS.expiresAt + 1), undefined, 'expired → refused')
})

t.test('readClientInfo', async (t) => {
  const cases: Array<[unknown, unknown]> = [
    [{ name: 'c', version: '1' }, { name: 'c', version: '1' }],
    [{ name: 'c', version: '1', title: 'C', icons: [] }, { name: 'c', version: '1' }],
    [{ name: 'x'.repeat(100), version: '1' }, { name: 'x'.repeat(MAX_CLIENT_INFO_CHARS), version: '1' }],
    [{ name: 'c' }, undefined],
    [{ version: '1' }, undefined],
    [{ name: 1, version: '1' }, undefined],
    ['c', undefined],
  ]
  for (const [input, expected] of cases) t.same(readClientInfo(input), expected, `${JSON.stringify(input).slice(0, 40)} → ${JSON.stringify(expected)?.slice(0, 40)}`)
})
