// JWT access tokens against a real authorization server (oidc-provider) and its JWKS: real tokens
// accepted; each rejection changes exactly one thing about an otherwise valid token.
import t from 'tap'
import { Agent } from 'undici'
import { JwtVerifier } from '../../../src/auth/jwt-verifier.ts'
import { TokenError } from '../../../src/auth/token-error.ts'
import { startAuthorizationServer } from '../../helpers/authorization-server.ts'
import { startStub } from '../../helpers/stub-http.ts'

const RESOURCE = 'http://127.0.0.1:1/mcp'
const nowS = (): number => Math.floor(Date.now() / 1000)

async function rejection(verifier: JwtVerifier, token: string): Promise<TokenError> {
  try {
    await verifier.verify(token)
  } catch (err) {
    if (err instanceof TokenError) return err
    throw err
  }
  throw new Error('token accepted')
}

t.test('tokens from oidc-provider', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const verifier = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri, algorithms: ['RS256', 'ES256', 'EdDSA'], clockToleranceS: 30, dispatcher })
  const claims = { iss: as.issuer, aud: RESOURCE, sub: 'alice', client_id: 'app', scope: 'mcp', exp: nowS() + 300, iat: nowS() }

  const real = await verifier.verify(await as.clientCredentials({ resource: RESOURCE, scope: 'mcp mcp:admin' }))
  t.equal(real.id, 'user:m2m:m2m', 'client-credentials token → principal m2m/m2m')
  t.same([...real.scopes], ['mcp', 'mcp:admin'], 'its scopes')
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    const p = await verifier.verify(await as.keys.sign(claims, { alg }))
    t.equal(p.id, 'user:alice:app', `${alg} by a published key → accepted`)
  }
  t.equal((await verifier.verify(await as.keys.sign({ ...claims, exp: nowS() - 10 }))).subject, 'alice', 'expired 10 s ago, within the 30 s tolerance → accepted')
  t.same([...(await verifier.verify(await as.keys.sign({ ...claims, scope: undefined, scp: ['a', 'b'] }))).scopes], ['a', 'b'], 'scp list → scopes')
  t.equal((await verifier.verify(await as.keys.sign({ ...claims, aud: ['other', RESOURCE] }))).subject, 'alice', 'aud list containing the resource → accepted')

  const otherResource = await as.clientCredentials({ resource: 'http://127.0.0.1:2/other', scope: 'mcp' })
  const cases: Array<[string, Promise<string> | string, RegExp]> = [
    ['wrong audience (a real token for another resource)', otherResource, /aud claim/],
    ['wrong issuer', as.keys.sign({ ...claims, iss: 'http://127.0.0.1:9/other' }), /iss claim/],
    ['expired', as.keys.sign({ ...claims, exp: nowS() - 120 }), /expired/],
    ['not yet valid', as.keys.sign({ ...claims, nbf: nowS() + 120 }), /nbf claim/],
    ['no exp', as.keys.sign({ ...claims, exp: undefined }), /exp claim/],
    ['unknown key', as.keys.sign(claims, { unpublished: true }), /unknown key/],
    ['alg none', as.keys.unsigned(claims), /algorithm that is not accepted/],
    ['HS256 with the public key as secret', as.keys.hmacWithPublicKey(claims), /algorithm that is not accepted/],
    ['garbage', 'not.a.jwt', /malformed/],
    ['no subject or client', as.keys.sign({ ...claims, sub: undefined, client_id: undefined }), /neither a subject nor a client/],
  ]
  for (const [name, token, description] of cases) {
    const err = await rejection(verifier, await token)
    t.equal(err.failure, 'invalid', `${name} → invalid`)
    t.match(err.message, description, `${name} → "${err.message}"`)
  }
  // The set was fetched once: every later verification, the unknown kid included, used the cache
  // (an unknown kid refetches only after the 30 s cooldown).
  t.equal(as.requests.filter((r) => r === 'GET /jwks').length, 1, 'JWKS fetched once for all of these')
  const rsOnly = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: as.jwksUri, algorithms: ['RS256'], clockToleranceS: 30, dispatcher })
  t.match((await rejection(rsOnly, await as.keys.sign(claims, { alg: 'ES256' }))).message, /not accepted/, 'ES256 when only RS256 is configured → refused')
  t.equal(as.requests.filter((r) => r === 'GET /jwks').length, 1, 'a disallowed algorithm is refused before any key is fetched')
})

t.test('a JWKS that cannot be had → unavailable, not invalid', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const token = await as.keys.sign({ iss: as.issuer, aud: RESOURCE, sub: 'alice', exp: nowS() + 300 })
  const huge = await startStub(t, (_req, res) => res.end(JSON.stringify({ keys: [], pad: 'x'.repeat(1024 * 1024) })))
  const silent = await startStub(t, () => undefined)
  const failing = await startStub(t, (_req, res) => res.writeHead(500).end('{}'))
  const cases: Array<[string, string]> = [
    ['reply over the size cap', `${huge.origin}/jwks`],
    ['no answer within the timeout', `${silent.origin}/jwks`],
    ['HTTP 500', `${failing.origin}/jwks`],
    ['nobody listening', 'http://127.0.0.1:1/jwks'],
  ]
  for (const [name, jwksUri] of cases) {
    const verifier = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri, algorithms: ['RS256'], clockToleranceS: 30, dispatcher, timeoutMs: 300 })
    const err = await rejection(verifier, token)
    t.equal(err.failure, 'unavailable', `${name} → unavailable`)
  }
})
