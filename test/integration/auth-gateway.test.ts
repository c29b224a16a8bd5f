// The gateway as an OAuth 2.1 resource server, on real sockets: a real authorization server
// (oidc-provider) issuing and signing tokens, real SDK backends behind. Every rejection with its
// status and challenge; the metadata document; lists and calls by scope; the client's token never
// reaching a backend nor a log line; sealed state bound to the caller.
import { createHash } from 'node:crypto'
import t from 'tap'
import { CLIENTS, startAuthorizationServer } from '../helpers/authorization-server.ts'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient, META, type RawReply } from '../helpers/mcp-client.ts'
import { startRecordingServer } from '../helpers/recording-sdk-server.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
// The gateway's canonical URI: an identifier only here (raw clients do not check it).
const RESOURCE = 'http://127.0.0.1:1/mcp'
const PRM_URL = 'http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp'
const nowS = (): number => Math.floor(Date.now() / 1000)
const API_KEY = 'ci-bot-key-0123456789abcdef'

const as = await startAuthorizationServer(t)
const [files, admin, recorder] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'files', '--extras']),
  startFixture(t, BACKEND, ['--name', 'admin']),
  startRecordingServer(t),
])
const gateway = await startGateway(t, {
  auth: {
    resource: RESOURCE, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'],
    introspection: { url: as.introspectionUrl, clientId: CLIENTS.gateway.id, clientSecret: CLIENTS.gateway.secret },
    apiKeys: [{ name: 'ci-bot', sha256: createHash('sha256').update(API_KEY).digest('hex'), scopes: ['mcp'] }],
  },
  policy: [{ tools: ['admin__*'], scopes: ['mcp:admin'] }],
  backends: [
    { name: 'files', transport: 'http', url: files.url, namespace: 'files' },
    { name: 'admin', transport: 'http', url: admin.url, namespace: 'admin' },
    { name: 'rec', transport: 'http', url: recorder.url, namespace: 'rec' },
  ],
}, { logs: true, logLevel: 'trace' })
const raw = createRawClient(t, gateway.url)
const claims = { iss: as.issuer, aud: RESOURCE, sub: 'alice', client_id: 'app', scope: 'mcp', exp: nowS() + 600, iat: nowS() }
const user = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp' })
const boss = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp mcp:admin' })
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

function challengeOf(reply: RawReply): string {
  return String(reply.headers['www-authenticate'] ?? '')
}

t.test('rejections: status, challenge, JSON-RPC body', async (t) => {
  const otherAudience = await as.clientCredentials({ resource: 'http://127.0.0.1:2/other', scope: 'mcp' })
  const noScope = await as.clientCredentials({ resource: RESOURCE, scope: 'backend' })
  const cases: Array<[string, Record<string, string | undefined>, number, RegExp]> = [
    ['no token', {}, 401, new RegExp(`^Bearer resource_metadata="${PRM_URL.replace(/[./]/g, '\\$&')}", scope="mcp"$`)],
    ['wrong audience', { authorization: `Bearer ${otherAudience}` }, 401, /error="invalid_token", error_description="the token's aud claim/],
    ['wrong issuer', { authorization: `Bearer ${await as.keys.sign({ ...claims, iss: 'http://127.0.0.1:9' })}` }, 401, /error="invalid_token".*iss claim/],
    ['expired', { authorization: `Bearer ${await as.keys.sign({ ...claims, exp: nowS() - 120 })}` }, 401, /error="invalid_token", error_description="the token has expired"/],
    ['not yet valid', { authorization: `Bearer ${await as.keys.sign({ ...claims, nbf: nowS() + 120 })}` }, 401, /error="invalid_token".*nbf claim/],
    ['unknown key', { authorization: `Bearer ${await as.keys.sign(claims, { unpublished: true })}` }, 401, /error="invalid_token", error_description="the token is signed with an unknown key"/],
    ['alg none', { authorization: `Bearer ${as.keys.unsigned(claims)}` }, 401, /error="invalid_token".*not accepted/],
    ['HS256 with the public key', { authorization: `Bearer ${await as.keys.hmacWithPublicKey(claims)}` }, 401, /error="invalid_token".*not accepted/],
    ['garbage', { authorization: 'Bearer zzz' }, 401, /error="invalid_token"/],
    ['not Bearer', { authorization: 'Basic dTpw' }, 401, /error="invalid_token"/],
    ['valid token without the required scope', { authorization: `Bearer ${noScope}` }, 403, /scope="mcp", error="insufficient_scope"/],
  ]
  for (const [name, headers, status, challenge] of cases) {
    const reply = await raw.rpc('tools/list', {}, { headers })
    t.equal(reply.status, status, `${name} → HTTP ${status}`)
    t.match(challengeOf(reply), challenge, `${name} → ${challengeOf(reply)}`)
    t.match(reply.json, { jsonrpc: '2.0', error: { code: -32600 } }, `${name} → a JSON-RPC error body`)
  }
  const query = await raw.send('POST', `/mcp?access_token=${user}`, { headers: { 'content-type': 'application/json', authorization: `Bearer ${user}` }, body: '{}' })
  t.equal(query.status, 400, 'token in the query string → 400, even beside a valid header')
  t.match(challengeOf(query), /error="invalid_request"/, 'invalid_request')
  const browser = await raw.rpc('tools/list', {}, { headers: { origin: 'http://localhost' } })
  t.equal(browser.status, 401, 'a browser request (through Fastify) without a token → 401 too')
  t.match(browser.headers['access-control-expose-headers'], /www-authenticate/i, 'with the challenge readable by the page (CORS)')
  t.match(challengeOf(browser), /^Bearer resource_metadata=/, 'and the challenge itself')
  const initialize = await raw.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } })
  t.equal(initialize.status, 401, 'a 2025-11-25 initialize without a token → 401 as well (both eras)')
  t.match(challengeOf(initialize), /^Bearer resource_metadata=/, 'with the same challenge')
  const notification = await raw.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} })
  t.equal(notification.status, 401, 'a notification needs a token too (AUTH-16)')
})

t.test('accepted credentials: JWT, opaque token (introspection), API key', async (t) => {
  const opaque = await as.clientCredentials({ resource: RESOURCE, scope: 'mcp', client: CLIENTS.opaque })
  const cases: Array<[string, string]> = [['JWT from the AS', user], ['opaque token, introspected', opaque], ['API key', API_KEY]]
  for (const [name, token] of cases) {
    const reply = await raw.rpc('tools/call', { name: 'rec__echo', arguments: { text: name } }, bearer(token))
    t.same(reply.json.result?.content, [{ type: 'text', text: name }], `${name} → the call succeeds`)
  }
})

t.test('metadata and health need no token', async (t) => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const reply = await raw.send('GET', path, { headers: { origin: 'https://any.example' } })
    t.equal(reply.status, 200, `${path} → 200`)
    t.same(reply.json, { resource: RESOURCE, authorization_servers: [as.issuer], scopes_supported: ['mcp', 'mcp:admin'], bearer_methods_supported: ['header'] }, 'the document')
    t.equal(reply.headers['access-control-allow-origin'], '*', 'CORS open')
  }
  for (const path of ['/livez', '/readyz', '/metrics']) t.equal((await raw.send('GET', path)).status, 200, `${path} → 200 without a token`)
})

t.test('lists and calls by scope (policy)', async (t) => {
  const names = async (token: string): Promise<string[]> => ((await raw.rpc('tools/list', {}, bearer(token))).json.result.tools as Array<{ name: string }>).map((tool) => tool.name)
  const plain = await names(user)
  const all = await names(boss)
  t.notOk(plain.some((n) => n.startsWith('admin__')), 'mcp → no admin tools listed')
  t.ok(all.includes('admin__echo') && all.includes('files__echo'), 'mcp + mcp:admin → admin tools too')
  t.equal((await raw.rpc('tools/list', {}, bearer(user))).json.result.cacheScope, 'private', 'a filtered list is private')
  const forbidden = await raw.rpc('tools/call', { name: 'admin__echo', arguments: { text: 'x' } }, bearer(user))
  t.equal(forbidden.status, 403, 'calling a policy-protected tool without the scope → 403')
  t.match(challengeOf(forbidden), /scope="mcp mcp:admin", error="insufficient_scope"/, 'naming every scope it needs')
  const allowed = await raw.rpc('tools/call', { name: 'admin__echo', arguments: { text: 'x' } }, bearer(boss))
  t.match(allowed.json.result.content, [{ type: 'text', text: /x/ }], 'with mcp:admin → it runs')
})

t.test('the client\'s token reaches no backend and no log line', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'rec__echo', arguments: { text: 'hi' } }, bearer(user))
  t.same(reply.json.result.content, [{ type: 'text', text: 'hi' }], 'the call went through')
  t.ok(recorder.authorizations.length > 0, 'the backend saw requests')
  t.ok(recorder.authorizations.every((a) => a === undefined), 'none carried an Authorization header (AUTH-8)')
  const lines = JSON.stringify(gateway.logs!.seen())
  t.ok(gateway.logs!.seen().length > 0, 'the gateway logged (at trace)')
  t.notOk(lines.includes(user) || lines.includes(boss), 'no token in any log line, at any level (AUTH-15)')
})

t.test('sealed requestState from one caller is refused for another', async (t) => {
  const alice = await as.keys.sign(claims)
  const bob = await as.keys.sign({ ...claims, sub: 'bob' })
  const meta = { [META.clientCapabilities]: { elicitation: {} } }
  const first = await raw.rpc('tools/call', { name: 'files__ask-name', arguments: {} }, { meta, ...bearer(alice) })
  const requestState = first.json.result?.requestState
  t.type(requestState, 'string', 'alice got input_required with sealed state')
  const inputResponses = { user_name: { action: 'accept', content: { name: 'Bob' } } }
  const stolen = await raw.rpc('tools/call', { name: 'files__ask-name', arguments: {}, inputResponses, requestState }, { meta, ...bearer(bob) })
  t.equal(stolen.json.error?.code, -32602, 'bob retrying with alice\'s state → -32602 invalid requestState')
  const own = await raw.rpc('tools/call', { name: 'files__ask-name', arguments: {}, inputResponses, requestState }, { meta, ...bearer(alice) })
  t.ok(own.json.result, 'alice retrying with her own → accepted')
})

t.test('the rate limit trips per principal', async (t) => {
  const limited = await startGateway(t, {
    auth: { resource: RESOURCE, authorizationServers: [as.issuer], jwksUri: as.jwksUri, requiredScopes: ['mcp'] },
    // One request a minute refills: the four requests below cannot earn a token back however slow.
    rateLimit: { requestsPerMinute: 1, burst: 2 },
  })
  const client = createRawClient(t, limited.url)
  const alice = await as.keys.sign(claims)
  const bob = await as.keys.sign({ ...claims, sub: 'bob' })
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await client.rpc('server/discover', {}, bearer(alice))).status)
  t.same(statuses, [200, 200, 429], 'burst of 2, then 429')
  const over = await client.rpc('server/discover', {}, bearer(alice))
  t.equal(over.status, 429, 'still over')
  t.match(over.headers['retry-after'], /^\d+$/, 'with Retry-After')
  t.match(over.json, { jsonrpc: '2.0', error: { code: -32600, message: /Too many requests/ } }, 'and a JSON-RPC error body')
  t.equal((await client.rpc('server/discover', {}, bearer(bob))).status, 200, 'another principal is unaffected')
  const metrics = await client.send('GET', '/metrics')
  t.match(metrics.text, /mcp_gateway_rate_limited_total 2/, 'counted in metrics')
})
