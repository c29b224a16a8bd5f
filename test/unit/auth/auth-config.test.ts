// auth / policy / rateLimit / trustProxy validation: defaults filled in, every error listed in one
// pass, unknown keys refused; the MCP_GATEWAY_AUTH_* overrides; the open-access warning.
import t from 'tap'
import { applyAuthEnv, openAccessWarning, validateAuthSettings } from '../../../src/auth/auth-config.ts'
import { validateBackendAuth, conflictsWithHeaders } from '../../../src/auth/backend-auth-config.ts'

const AUTH = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://login.example.com'], jwksUri: 'https://login.example.com/jwks' }
const SHA = 'a'.repeat(64)

t.test('{} → auth off, no policy, no rate limit, trustProxy false', async (t) => {
  t.same(validateAuthSettings({}), { ok: true, settings: { policy: [], trustProxy: false } })
})

t.test('auth defaults: issuer = the one server, audience = resource, scopesSupported = required ∪ policy', async (t) => {
  const result = validateAuthSettings({ auth: { ...AUTH, requiredScopes: ['mcp'] }, policy: [{ tools: ['admin__*'], scopes: ['mcp:admin'] }] })
  t.ok(result.ok)
  if (!result.ok) return
  t.same(result.settings.auth, {
    ...AUTH, issuer: 'https://login.example.com', audience: AUTH.resource, algorithms: ['RS256', 'ES256', 'EdDSA'], requiredScopes: ['mcp'],
    scopesSupported: ['mcp', 'mcp:admin'], scopeHierarchy: {}, clockToleranceS: 30, apiKeys: [],
  })
  t.same(result.settings.policy, [{ tools: ['admin__*'], prompts: [], resources: [], scopes: ['mcp:admin'] }])
})

t.test('accepted inputs', async (t) => {
  const cases: Array<[string, Record<string, unknown>, (s: any) => unknown, unknown]> = [
    ['http issuer on loopback', { auth: { ...AUTH, authorizationServers: ['http://127.0.0.1:9000'], jwksUri: 'http://localhost:9000/jwks' } }, (s) => s.auth.issuer, 'http://127.0.0.1:9000'],
    ['explicit issuer and audience', { auth: { ...AUTH, issuer: 'https://other.example.com', audience: 'api://mcp' } }, (s) => [s.auth.issuer, s.auth.audience], ['https://other.example.com', 'api://mcp']],
    ['api key only, scopes default to required', { auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers, requiredScopes: ['mcp'], apiKeys: [{ name: 'ci-bot', sha256: SHA.toUpperCase() }] } },
      (s) => s.auth.apiKeys, [{ name: 'ci-bot', sha256: SHA, scopes: ['mcp'] }]],
    ['introspection only', { auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers, introspection: { url: 'https://login.example.com/introspect', clientId: 'gw', clientSecret: 's' } } },
      (s) => s.auth.introspection.clientId, 'gw'],
    ['rateLimit burst default = 10 s worth', { rateLimit: { requestsPerMinute: 600 } }, (s) => s.rateLimit, { requestsPerMinute: 600, burst: 100 }],
    ['trustProxy true', { trustProxy: true }, (s) => s.trustProxy, true],
    ['scope hierarchy', { auth: { ...AUTH, scopeHierarchy: { 'mcp:admin': ['mcp'] } } }, (s) => s.auth.scopeHierarchy, { 'mcp:admin': ['mcp'] }],
  ]
  for (const [name, raw, pick, expected] of cases) {
    const result = validateAuthSettings(raw)
    t.ok(result.ok, `${name} → valid`)
    if (result.ok) t.same(pick(result.settings), expected, `${name} → ${JSON.stringify(expected)}`)
  }
})

t.test('refused inputs, each with its path', async (t) => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['auth not an object', { auth: 'x' }, /^auth: must be an object/],
    ['unknown auth key', { auth: { ...AUTH, colour: 1 } }, /^auth\.colour: unknown setting/],
    ['resource missing', { auth: { ...AUTH, resource: undefined } }, /^auth\.resource: must be a non-empty string/],
    ['resource with fragment', { auth: { ...AUTH, resource: 'https://mcp.example.com/mcp#x' } }, /^auth\.resource: must not have a fragment/],
    ['resource with query', { auth: { ...AUTH, resource: 'https://mcp.example.com/mcp?a=1' } }, /^auth\.resource: must not have a query/],
    ['resource http off loopback', { auth: { ...AUTH, resource: 'http://mcp.example.com/mcp' } }, /^auth\.resource: must be https/],
    ['no authorization server', { auth: { ...AUTH, authorizationServers: [] } }, /^auth\.authorizationServers: must list at least one/],
    ['http issuer off loopback', { auth: { ...AUTH, authorizationServers: ['http://login.example.com'] } }, /^auth\.authorizationServers\[0\]: must be https/],
    ['http jwksUri off loopback', { auth: { ...AUTH, jwksUri: 'http://login.example.com/jwks' } }, /^auth\.jwksUri: must be https/],
    ['two servers, no issuer', { auth: { ...AUTH, authorizationServers: ['https://a.example', 'https://b.example'] } }, /^auth\.issuer: is required/],
    ['alg none', { auth: { ...AUTH, algorithms: ['none'] } }, /^auth\.algorithms: "none" is not allowed/],
    ['alg HS256', { auth: { ...AUTH, algorithms: ['RS256', 'HS256'] } }, /^auth\.algorithms: "HS256" is not allowed/],
    ['no algorithm', { auth: { ...AUTH, algorithms: [] } }, /^auth\.algorithms: must name at least one/],
    ['offline_access required', { auth: { ...AUTH, requiredScopes: ['offline_access'] } }, /^auth\.requiredScopes: must not include offline_access/],
    ['offline_access supported', { auth: { ...AUTH, scopesSupported: ['mcp', 'offline_access'] } }, /^auth\.scopesSupported: must not include offline_access/],
    ['scope with a space', { auth: { ...AUTH, requiredScopes: ['a b'] } }, /^auth\.requiredScopes: "a b" is not a valid scope token/],
    ['nothing to check tokens with', { auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers } }, /^auth: needs at least one of jwksUri, introspection or apiKeys/],
    ['api key digest not hex', { auth: { ...AUTH, apiKeys: [{ name: 'k', sha256: 'zz' }] } }, /^auth\.apiKeys\[0\]\.sha256: must be 64 hex digits/],
    ['api key duplicate name', { auth: { ...AUTH, apiKeys: [{ name: 'k', sha256: SHA }, { name: 'k', sha256: SHA }] } }, /^auth\.apiKeys: duplicate name "k"/],
    ['introspection without secret', { auth: { ...AUTH, introspection: { url: 'https://a.example/i', clientId: 'x' } } }, /^auth\.introspection\.clientSecret: must be a non-empty string/],
    ['clock tolerance negative', { auth: { ...AUTH, clockToleranceS: -1 } }, /^auth\.clockToleranceS: must be an integer from 0 to 600/],
    ['policy rule without names', { auth: AUTH, policy: [{ scopes: ['x'] }] }, /^policy\[0\]: must name tools, prompts or resources/],
    ['policy rule without scopes', { auth: AUTH, policy: [{ tools: ['a'] }] }, /^policy\[0\]\.scopes: must list at least one scope/],
    ['policy rule unknown key', { auth: AUTH, policy: [{ tools: ['a'], scopes: ['x'], tool: 1 }] }, /^policy\[0\]\.tool: unknown setting/],
    ['policy without auth', { policy: [{ tools: ['a'], scopes: ['x'] }] }, /^policy: needs auth/],
    ['rateLimit without requestsPerMinute', { rateLimit: { burst: 3 } }, /^rateLimit\.requestsPerMinute: is required/],
    ['rateLimit zero', { rateLimit: { requestsPerMinute: 0 } }, /^rateLimit\.requestsPerMinute: must be an integer from 1/],
    ['trustProxy a string', { trustProxy: 'yes' }, /^trustProxy: must be true or false/],
  ]
  for (const [name, raw, expected] of cases) {
    const result = validateAuthSettings(raw)
    t.notOk(result.ok, `${name} → refused`)
    if (!result.ok) t.ok(result.errors.some((e) => expected.test(e)), `${name} → ${expected} (got ${JSON.stringify(result.errors)})`)
  }
})

t.test('every error at once', async (t) => {
  const result = validateAuthSettings({ auth: { resource: 'nope', authorizationServers: ['ftp://x'], algorithms: ['none'] }, rateLimit: { requestsPerMinute: -1 }, trustProxy: 1 })
  t.notOk(result.ok)
  if (!result.ok) t.ok(result.errors.length >= 5, `5+ errors listed: ${result.errors.join(' | ')}`)
})

t.test('environment overrides', async (t) => {
  const env = {
    MCP_GATEWAY_AUTH_RESOURCE: 'https://gw.example.com/mcp', MCP_GATEWAY_AUTH_SERVERS: 'https://a.example, https://b.example',
    MCP_GATEWAY_AUTH_ISSUER: 'https://a.example', MCP_GATEWAY_AUTH_JWKS_URI: 'https://a.example/jwks', MCP_GATEWAY_AUTH_REQUIRED_SCOPES: 'mcp,mcp:read',
  }
  t.same(applyAuthEnv({ port: 1 }, env), { port: 1, auth: {
    resource: 'https://gw.example.com/mcp', authorizationServers: ['https://a.example', 'https://b.example'], issuer: 'https://a.example',
    jwksUri: 'https://a.example/jwks', requiredScopes: ['mcp', 'mcp:read'],
  } }, 'no auth in the file → created from the environment')
  t.same(applyAuthEnv({ auth: { ...AUTH, clockToleranceS: 5 } }, { MCP_GATEWAY_AUTH_RESOURCE: 'https://x.example/mcp' }).auth,
    { ...AUTH, clockToleranceS: 5, resource: 'https://x.example/mcp' }, 'file values kept, the variable wins')
  const raw = { auth: AUTH }
  t.equal(applyAuthEnv(raw, { MCP_GATEWAY_AUTH_RESOURCE: '' }), raw, 'empty variable → not set')
})

t.test('open access warning', async (t) => {
  const open = { policy: [], trustProxy: false }
  t.match(openAccessWarning('0.0.0.0', open), /anyone who can reach/, '0.0.0.0 without auth → warning')
  t.equal(openAccessWarning('127.0.0.1', open), undefined, 'loopback → none')
  t.equal(openAccessWarning('::1', open), undefined, '::1 → none')
  const settings = validateAuthSettings({ auth: AUTH })
  if (settings.ok) t.equal(openAccessWarning('0.0.0.0', settings.settings), undefined, 'auth on → none')
})

t.test('backend auth', async (t) => {
  const cc = { type: 'clientCredentials', tokenUrl: 'https://as.example/token', clientId: 'gw', clientSecret: 's', scope: 'read', audience: 'https://api.example' }
  t.same(validateBackendAuth(cc, 'backends[0].auth'), { auth: cc, errors: [] }, 'client credentials → kept')
  const exchange = { type: 'tokenExchange', tokenUrl: cc.tokenUrl, clientId: 'gw', clientSecret: 's', audience: cc.audience }
  t.same(validateBackendAuth(exchange, 'b'), { auth: exchange, errors: [] }, 'token exchange without scope → kept, no scope')
  t.same(validateBackendAuth(undefined, 'b'), { errors: [] }, 'absent → no auth')
  const cases: Array<[string, unknown, RegExp]> = [
    ['unknown type', { ...cc, type: 'basic' }, /^b\.type: must be "clientCredentials" or "tokenExchange"/],
    ['http token URL off loopback', { ...cc, tokenUrl: 'http://as.example/token' }, /^b\.tokenUrl: must be https/],
    ['no secret', { ...cc, clientSecret: '' }, /^b\.clientSecret: must be a non-empty string/],
    ['unknown key', { ...cc, password: 'x' }, /^b\.password: unknown setting/],
  ]
  for (const [name, raw, expected] of cases) {
    const result = validateBackendAuth(raw, 'b')
    t.ok(result.errors.some((e) => expected.test(e)), `${name} → ${expected} (got ${JSON.stringify(result.errors)})`)
    t.equal(result.auth, undefined, `${name} → no auth`)
  }
  t.match(conflictsWithHeaders({ Authorization: 'Bearer x' }, 'backends[0]'), /either headers.authorization or auth/, 'both → refused')
  t.equal(conflictsWithHeaders({ 'x-api-key': 'k' }, 'backends[0]'), undefined, 'other headers → fine')
})
