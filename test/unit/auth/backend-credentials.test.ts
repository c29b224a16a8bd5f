// The gateway's own credentials toward backends, from a real oidc-provider: client credentials
// (shared, cached until shortly before expiry, renewed after a 401) and RFC 8693 token exchange
// (per caller token); never the caller's token itself.
import t from 'tap'
import { Agent } from 'undici'
import { decodeJwt } from 'jose'
import { createBackendCredentials, CredentialError } from '../../../src/auth/backend-credentials.ts'
import { JwtVerifier } from '../../../src/auth/jwt-verifier.ts'
import { ANONYMOUS, Principal } from '../../../src/auth/principal.ts'
import { TokenCache } from '../../../src/auth/token-cache.ts'
import { CLIENTS, startAuthorizationServer } from '../../helpers/authorization-server.ts'

const GATEWAY = 'http://127.0.0.1:1/mcp'
const BACKEND = 'http://127.0.0.1:3/backend'
const bearer = (value: string): Record<string, unknown> => decodeJwt(value.replace(/^Bearer /, ''))

async function failure(promise: Promise<unknown>): Promise<CredentialError> {
  try {
    await promise
  } catch (err) {
    if (err instanceof CredentialError) return err
    throw err
  }
  throw new Error('no error')
}

t.test('client credentials', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  let now = Date.now()
  const config = { type: 'clientCredentials', tokenUrl: as.tokenUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret, scope: 'backend', audience: BACKEND } as const
  const credentials = createBackendCredentials(config, { dispatcher, now: () => now })
  const tokenRequests = (): number => as.requests.filter((r) => r === 'POST /token').length
  const [a, b] = await Promise.all([credentials.authorization(ANONYMOUS), credentials.authorization(ANONYMOUS)])
  t.equal(a, b, 'two concurrent calls → one token')
  t.equal(tokenRequests(), 1, 'one token request')
  t.match(bearer(a), { aud: BACKEND, client_id: 'gateway', sub: 'gateway', scope: 'backend' }, 'the gateway\'s own token, for the backend')
  credentials.invalidate(ANONYMOUS, 'Bearer some-older-token')
  t.equal(await credentials.authorization(ANONYMOUS), a, 'invalidating another value → the cached token stays')
  credentials.invalidate(ANONYMOUS, a)
  const renewed = await credentials.authorization(ANONYMOUS)
  t.not(renewed, a, 'after a 401 → a new token')
  t.equal(tokenRequests(), 2, 'fetched once more')
  now += 599_000
  const later = await credentials.authorization(ANONYMOUS)
  t.not(later, renewed, 'shortly before expiry (600 s lifetime) → renewed')
  t.equal(tokenRequests(), 3, 'fetched again')

  const wrong = createBackendCredentials({ ...config, clientSecret: 'wrong' }, { dispatcher })
  const refused = await failure(wrong.authorization(ANONYMOUS))
  t.equal(refused.failure, 'refused', 'wrong secret → refused')
  t.match(refused.message, /invalid_client/, 'with the AS error code')
  t.notOk(refused.message.includes('wrong'), 'never the secret')
  const unreachable = await failure(createBackendCredentials({ ...config, tokenUrl: 'http://127.0.0.1:1/token' }, { dispatcher }).authorization(ANONYMOUS))
  t.equal(unreachable.failure, 'unreachable', 'nobody listening → unreachable')
})

t.test('token exchange', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const verifier = new JwtVerifier({ issuer: as.issuer, audience: GATEWAY, jwksUri: as.jwksUri, algorithms: ['RS256'], clockToleranceS: 30, dispatcher })
  const exp = Math.floor(Date.now() / 1000) + 300
  const alice = await verifier.verify(await as.keys.sign({ iss: as.issuer, aud: GATEWAY, sub: 'alice', client_id: 'app', scope: 'mcp', exp }))
  const bob = await verifier.verify(await as.keys.sign({ iss: as.issuer, aud: GATEWAY, sub: 'bob', client_id: 'app', scope: 'mcp', exp }))
  const credentials = createBackendCredentials({
    type: 'tokenExchange', tokenUrl: as.tokenUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret, audience: BACKEND, scope: 'backend',
  }, { dispatcher })
  const forAlice = await credentials.authorization(alice)
  t.match(bearer(forAlice), { aud: BACKEND, sub: 'alice', client_id: 'gateway' }, 'alice\'s token exchanged for one whose audience is the backend')
  t.not(forAlice, `Bearer ${alice.bearerToken}`, 'not the caller\'s token (AUTH-8)')
  t.equal(await credentials.authorization(alice), forAlice, 'alice again → the same exchanged token')
  const forBob = await credentials.authorization(bob)
  t.match(bearer(forBob), { sub: 'bob' }, 'bob → his own')
  t.same(as.exchanges.map((e) => e.subject), ['alice', 'bob'], 'two exchanges at the AS')
  t.equal((await failure(credentials.authorization(new Principal({ kind: 'apiKey', subject: 'ci-bot' })))).failure, 'no_subject_token', 'an API key has no token to exchange')
  t.equal((await failure(credentials.authorization(ANONYMOUS))).failure, 'no_subject_token', 'nor has an anonymous caller')
  const forged = new Principal({ kind: 'user', subject: 'eve', token: 'not-a-token-of-this-as' })
  t.match((await failure(credentials.authorization(forged))).message, /invalid_grant/, 'a subject token the AS did not issue → refused')
})

t.test('TokenCache: renews before expiry, evicts when full', async (t) => {
  let now = 0
  const cache = new TokenCache({ now: () => now, maxEntries: 2 })
  let fetches = 0
  const issue = async () => ({ accessToken: `t${++fetches}`, expiresAtMs: now + 100_000 })
  t.equal((await cache.obtain('a', issue)).accessToken, 't1', 'first → fetched')
  now = 39_999
  t.equal((await cache.obtain('a', issue)).accessToken, 't1', 'before renew time → cached')
  now = 90_001
  t.equal((await cache.obtain('a', issue)).accessToken, 't2', 'within the last 10 % (≤ 60 s) → renewed')
  await cache.obtain('b', issue)
  await cache.obtain('c', issue)
  t.equal(cache.size, 2, 'bounded')
})
