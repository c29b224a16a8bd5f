// Principal: stable ids for binding, a digest in sealed state, the token never serialized.
import t from 'tap'
import { ANONYMOUS, Principal } from '../../../src/auth/principal.ts'

t.test('ids', async (t) => {
  const cases: Array<[string, Principal, string]> = [
    ['user', new Principal({ kind: 'user', subject: 'alice', clientId: 'app' }), 'user:alice:app'],
    ['user without client', new Principal({ kind: 'user', subject: 'alice' }), 'user:alice:'],
    ['separator in subject is encoded', new Principal({ kind: 'user', subject: 'a:b', clientId: 'c' }), 'user:a%3Ab:c'],
    ['api key', new Principal({ kind: 'apiKey', subject: 'ci-bot' }), 'key:ci-bot'],
    ['anonymous', ANONYMOUS, 'anonymous'],
  ]
  for (const [name, p, id] of cases) t.equal(p.id, id, `${name} → ${id}`)
  const ab = new Principal({ kind: 'user', subject: 'a:b', clientId: 'c' })
  const a = new Principal({ kind: 'user', subject: 'a', clientId: 'b:c' })
  t.not(ab.id, a.id, '"a:b"+"c" and "a"+"b:c" → different ids')
})

t.test('binding and cache key', async (t) => {
  const alice = new Principal({ kind: 'user', subject: 'alice', clientId: 'app', scopes: ['mcp', 'a'] })
  const again = new Principal({ kind: 'user', subject: 'alice', clientId: 'app', scopes: ['a', 'mcp'] })
  const bob = new Principal({ kind: 'user', subject: 'bob', clientId: 'app', scopes: ['mcp'] })
  t.equal(alice.binding, again.binding, 'same subject and client → same binding')
  t.not(alice.binding, bob.binding, 'another subject → another binding')
  t.notOk(alice.binding.includes('alice'), 'binding → does not reveal the subject')
  t.equal(alice.binding.length, 22, 'binding → 22 characters')
  t.equal(ANONYMOUS.binding, 'anonymous', 'anonymous → "anonymous" (as before auth)')
  t.equal(alice.cacheKey, again.cacheKey, 'scopes in any order → same cache key')
  const fewer = new Principal({ kind: 'user', subject: 'alice', clientId: 'app', scopes: ['mcp'] })
  t.not(alice.cacheKey, fewer.cacheKey, 'other scopes → another cache key (CACHE-12)')
})

t.test('the bearer token never serializes', async (t) => {
  const p = new Principal({ kind: 'user', subject: 'alice', token: 'secret-token-value' })
  t.equal(p.bearerToken, 'secret-token-value', 'readable on purpose (token exchange)')
  t.notOk(JSON.stringify(p).includes('secret-token-value'), 'JSON.stringify → no token')
  t.notOk(JSON.stringify({ principal: p }).includes('secret-token-value'), 'nested → no token')
  t.notOk(Object.values(p).some((v) => v === 'secret-token-value'), 'own enumerable values → no token')
  t.same(JSON.parse(JSON.stringify(p)), { kind: 'user', subject: 'alice', scopes: [] }, 'toJSON → kind, subject, client, scopes')
})
