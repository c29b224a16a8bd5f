// API keys: matched by SHA-256, every digest compared, the principal named by the key's name.
import { createHash } from 'node:crypto'
import t from 'tap'
import { ApiKeys } from '../../../src/auth/api-keys.ts'

const sha = (key: string): string => createHash('sha256').update(key).digest('hex')

t.test('match', async (t) => {
  const keys = new ApiKeys([
    { name: 'ci-bot', sha256: sha('key-one'), scopes: ['mcp'] },
    { name: 'ops', sha256: sha('key-two'), scopes: ['mcp', 'mcp:admin'] },
  ])
  t.equal(keys.match('key-one')?.id, 'key:ci-bot', 'first key → ci-bot')
  t.same([...keys.match('key-two')!.scopes], ['mcp', 'mcp:admin'], 'second key → its scopes')
  t.equal(keys.match('key-three'), undefined, 'unknown key → none')
  t.equal(keys.match(''), undefined, 'empty → none')
  t.equal(keys.match('key-one ')?.id, undefined, 'trailing space → none')
  t.equal(keys.match('key-one')?.bearerToken, undefined, 'an API key principal holds no token to exchange')
  t.equal(new ApiKeys([]).match('key-one'), undefined, 'no keys → none')
})
