// Opaque tokens checked by RFC 7662 introspection at a real oidc-provider: active tokens for this
// resource accepted and held until exp; inactive, revoked or foreign ones refused.
import t from 'tap'
import { Agent, request } from 'undici'
import { Introspector } from '../../../src/auth/introspection.ts'
import { TokenError } from '../../../src/auth/token-error.ts'
import { CLIENTS, startAuthorizationServer } from '../../helpers/authorization-server.ts'
import { startStub } from '../../helpers/stub-http.ts'

const RESOURCE = 'http://127.0.0.1:1/mcp'
const basic = (c: { id: string; secret: string }): string => `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`

async function rejection(introspector: Introspector, token: string): Promise<TokenError> {
  try {
    await introspector.verify(token)
  } catch (err) {
    if (err instanceof TokenError) return err
    throw err
  }
  throw new Error('token accepted')
}

t.test('introspection', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  let now = Date.now()
  const introspector = new Introspector({
    config: { url: as.introspectionUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret },
    issuer: as.issuer, audience: RESOURCE, clockToleranceS: 30, dispatcher, now: () => now,
  })
  const introspections = (): number => as.requests.filter((r) => r === 'POST /token/introspection').length
  const token = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp', client: CLIENTS.opaque })
  t.notOk(token.includes('.'), 'the AS issued an opaque token')
  const principal = await introspector.verify(token)
  t.equal(principal.id, 'user:opaque-m2m:opaque-m2m', 'active → principal from sub and client_id')
  t.same([...principal.scopes], ['mcp'], 'scopes from the reply')
  t.equal(principal.bearerToken, token, 'the token is kept for exchange')
  await Promise.all([introspector.verify(token), introspector.verify(token)])
  t.equal(introspections(), 1, 'held until exp: later checks ask nobody')
  now = (principal.expiresAtMs ?? 0) + 31_000
  await rejection(introspector, token).then((err) => t.match(err.message, /expired/, 'past its exp and the tolerance → introspected again, and expired'))
  t.equal(introspections(), 2, 'past exp → a new introspection')
  now = Date.now()

  const foreign = await as.clientCredentials({ resource: 'http://127.0.0.1:2/other', scope: 'mcp', client: CLIENTS.opaque })
  t.match((await rejection(introspector, foreign)).message, /not issued for this resource/, 'another resource\'s token → refused (RFC 8707)')
  const revoked = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp', client: CLIENTS.opaque })
  const revocation = await request(`${as.issuer}/token/revocation`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(CLIENTS.opaque) }, body: `token=${revoked}`,
  })
  await revocation.body.dump()
  t.equal(revocation.statusCode, 200, 'revoked at the AS')
  t.match((await rejection(introspector, revoked)).message, /not active/, 'revoked → not active')
  t.match((await rejection(introspector, 'made-up-token')).message, /not active/, 'unknown → not active')
  t.equal((await rejection(introspector, 'made-up-token')).failure, 'invalid', 'negative answers are not held: asked again, still invalid')
})

t.test('a reply naming another issuer, or an endpoint that fails', async (t) => {
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const exp = Math.floor(Date.now() / 1000) + 60
  const foreignIssuer = await startStub(t, (_req, res) => res.end(JSON.stringify({ active: true, aud: RESOURCE, iss: 'https://evil.example', sub: 'x', exp })))
  const failing = await startStub(t, (_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}'))
  const config = (origin: string) => ({ url: `${origin}/introspect`, clientId: 'gw', clientSecret: 'pw d' })
  const make = (origin: string): Introspector => new Introspector({ config: config(origin), issuer: 'https://login.example', audience: RESOURCE, clockToleranceS: 0, dispatcher })
  t.match((await rejection(make(foreignIssuer.origin), 'tok')).message, /another authorization server/, 'iss of another AS → invalid')
  t.equal((await rejection(make(failing.origin), 'tok')).failure, 'unavailable', 'HTTP 401 from the endpoint → unavailable, not the token\'s fault')
  t.equal((await rejection(make('http://127.0.0.1:1'), 'tok')).failure, 'unavailable', 'nobody listening → unavailable')
  const seen = foreignIssuer.seen[0]
  t.equal(seen.headers.authorization, `Basic ${Buffer.from('gw:pw+d').toString('base64')}`, 'client_secret_basic, form-urlencoded parts')
  t.equal(seen.body, 'token=tok&token_type_hint=access_token', 'RFC 7662 form body')
})
