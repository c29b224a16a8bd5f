// GatewayAuth / Authenticator: the Authorization header → a principal or a refusal with its
// status and challenge; API keys; the required scope; the rate limit; the policy's 403.
import { createHash } from 'node:crypto'
import t from 'tap'
import { Agent } from 'undici'
import { settingsFor } from '../../helpers/auth-settings.ts'
import { GatewayAuth } from '../../../src/auth/gateway-auth.ts'
import { ANONYMOUS } from '../../../src/auth/principal.ts'
import { startAuthorizationServer } from '../../helpers/authorization-server.ts'

const RESOURCE = 'http://127.0.0.1:1/mcp'
const PRM = 'http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp'
const API_KEY = 'ci-bot-key-0123456789abcdef'
const nowS = (): number => Math.floor(Date.now() / 1000)

t.test('authenticate', async (t) => {
  const as = await startAuthorizationServer(t)
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const settings = settingsFor({
    auth: {
      resource: RESOURCE, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'],
      apiKeys: [{ name: 'ci-bot', sha256: createHash('sha256').update(API_KEY).digest('hex'), scopes: ['mcp'] }],
    },
    policy: [{ tools: ['admin__*'], scopes: ['mcp:admin'] }],
  })
  const auth = new GatewayAuth({ settings, dispatcher })
  const good = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp' })
  const admin = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp mcp:admin' })
  const noMcp = await as.keys.sign({ iss: as.issuer, aud: RESOURCE, sub: 'alice', scope: 'other', exp: nowS() + 60 })
  const expired = await as.keys.sign({ iss: as.issuer, aud: RESOURCE, sub: 'alice', scope: 'mcp', exp: nowS() - 300 })

  const accepted: Array<[string, string, string]> = [
    ['JWT from the AS', `Bearer ${good}`, 'user:m2m:m2m'],
    ['scheme in lower case', `bearer ${good}`, 'user:m2m:m2m'],
    ['API key', `Bearer ${API_KEY}`, 'key:ci-bot'],
  ]
  for (const [name, authorization, id] of accepted) {
    const outcome = await auth.authenticate({ authorization, url: '/mcp' })
    t.equal(outcome.ok && outcome.principal.id, id, `${name} → ${id}`)
  }
  const challenge = (extra: string): RegExp => new RegExp(`^Bearer resource_metadata="${PRM.replace(/[.?/]/g, '\\$&')}", scope="mcp"${extra}`)
  const refused: Array<[string, { authorization?: string; url?: string }, number, RegExp]> = [
    ['no header', {}, 401, challenge('$')],
    ['empty header', { authorization: '' }, 401, challenge('$')],
    ['Basic scheme', { authorization: 'Basic dXNlcjpwdw==' }, 401, challenge(', error="invalid_token"')],
    ['Bearer without a token', { authorization: 'Bearer ' }, 401, challenge(', error="invalid_token"')],
    ['token with a space', { authorization: `Bearer ${good} x` }, 401, challenge(', error="invalid_token"')],
    ['garbage', { authorization: 'Bearer garbage' }, 401, challenge(', error="invalid_token", error_description="the token is not a JWT"')],
    ['expired', { authorization: `Bearer ${expired}` }, 401, challenge(', error="invalid_token", error_description="the token has expired"')],
    ['token in the query string', { authorization: `Bearer ${good}`, url: `/mcp?access_token=${good}` }, 400, challenge(', error="invalid_request"')],
    ['valid token without the required scope', { authorization: `Bearer ${noMcp}` }, 403, /error="insufficient_scope"/],
  ]
  for (const [name, request, status, header] of refused) {
    const outcome = await auth.authenticate({ authorization: request.authorization, url: request.url ?? '/mcp' })
    t.notOk(outcome.ok, `${name} → refused`)
    if (outcome.ok) continue
    t.equal(outcome.error.httpStatus, status, `${name} → HTTP ${status}`)
    t.match(outcome.error.headers?.['www-authenticate'], header, `${name} → ${outcome.error.headers?.['www-authenticate']}`)
    t.notOk(JSON.stringify(outcome.error.toJsonRpcError()).includes(good), `${name} → the body never echoes the token`)
  }

  const user = await auth.authenticate({ authorization: `Bearer ${good}`, url: '/mcp' })
  const boss = await auth.authenticate({ authorization: `Bearer ${admin}`, url: '/mcp' })
  if (!user.ok || !boss.ok) throw new Error('expected principals')
  const forbidden = auth.forbid(user.principal, 'tools', 'admin__reset')
  t.equal(forbidden?.httpStatus, 403, 'admin tool without mcp:admin → 403')
  t.match(forbidden?.headers?.['www-authenticate'], /scope="mcp mcp:admin", error="insufficient_scope"/, 'every needed scope in one challenge')
  t.equal(auth.forbid(boss.principal, 'tools', 'admin__reset'), undefined, 'with mcp:admin → allowed')
  t.equal(auth.forbid(user.principal, 'tools', 'files__read'), undefined, 'unprotected tool → allowed')
  const visible = auth.visibility(user.principal, 'tools')
  t.same(['files__read', 'admin__reset'].filter((name) => visible!(name)), ['files__read'], 'tools list → without admin tools for mcp')
  t.equal(auth.visibility(user.principal, 'prompts'), undefined, 'no rule for prompts → no filtering')
  t.same(JSON.parse(auth.metadata!.body), { resource: RESOURCE, authorization_servers: [as.issuer], scopes_supported: ['mcp', 'mcp:admin'], bearer_methods_supported: ['header'] }, 'PRM document')
  t.equal(as.requests.filter((r) => r === 'GET /jwks').length, 1, 'one JWKS fetch for every request above')
})

t.test('auth off: everyone is anonymous; rate limit per address', async (t) => {
  const dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  let now = 0
  const auth = new GatewayAuth({ settings: settingsFor({ rateLimit: { requestsPerMinute: 60, burst: 2 }, trustProxy: true }), dispatcher, now: () => now })
  t.notOk(auth.enabled, 'no auth → not enabled')
  const outcome = await auth.authenticate({ authorization: 'Bearer whatever', url: '/mcp' })
  t.equal(outcome.ok && outcome.principal, ANONYMOUS, 'any header → anonymous')
  t.equal(auth.forbid(ANONYMOUS, 'tools', 'admin__x'), undefined, 'no auth → no policy refusals')
  const client = { remoteAddress: '10.0.0.1', forwardedFor: '203.0.113.7' }
  t.equal(await auth.limit(ANONYMOUS, client), undefined, '1st → allowed')
  t.equal(await auth.limit(ANONYMOUS, client), undefined, '2nd → allowed')
  const limited = await auth.limit(ANONYMOUS, client)
  t.equal(limited?.httpStatus, 429, '3rd → 429')
  t.equal(limited?.headers?.['retry-after'], '1', 'Retry-After: 1')
  t.equal(await auth.limit(ANONYMOUS, { remoteAddress: '10.0.0.1', forwardedFor: '203.0.113.8' }), undefined, 'another client behind the same proxy → its own bucket')
  now += 1000
  t.equal(await auth.limit(ANONYMOUS, client), undefined, 'a second later → allowed again')
})
