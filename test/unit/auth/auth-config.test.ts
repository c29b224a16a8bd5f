// auth / policy / rateLimit / trustProxy and a backend's auth, through the one config schema:
// defaults (also those derived from other settings), every error listed with its path, the
// MCP_GATEWAY_AUTH_* variables, and the open-access warning.
import t from 'tap'
import { deriveAuthSettings, openAccessWarning } from '../../../src/auth/auth-config.ts'
import { applyEnvOverrides, ENV_SETTINGS } from '../../../src/config/loader.ts'
import { validateConfig } from '../../../src/config/schema.ts'
import { settingsFor } from '../../helpers/auth-settings.ts'

const AUTH = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://login.example.com'], jwksUri: 'https://login.example.com/jwks' }
const SHA = 'a'.repeat(64)

function errorsOf(raw: Record<string, unknown>): string[] {
  const result = validateConfig(raw)
  return result.ok ? [] : result.errors
}

t.test('{} → auth off, no policy, no rate limit, trustProxy false', async (t) => {
  t.same(settingsFor({}), { policy: [], trustProxy: false })
})

t.test('auth defaults: issuer = the one server, audience = resource, scopesSupported = required ∪ policy', async (t) => {
  const settings = settingsFor({ auth: { ...AUTH, requiredScopes: ['mcp'] }, policy: [{ tools: ['admin__*'], scopes: ['mcp:admin'] }] })
  t.same(settings.auth, {
    ...AUTH, issuer: 'https://login.example.com', audience: AUTH.resource, algorithms: ['RS256', 'ES256', 'EdDSA'], requiredScopes: ['mcp'],
    scopesSupported: ['mcp', 'mcp:admin'], scopeHierarchy: {}, clockToleranceS: 30, apiKeys: [],
  })
  t.same(settings.policy, [{ tools: ['admin__*'], prompts: [], resources: [], scopes: ['mcp:admin'] }])
})

t.test('accepted inputs', async (t) => {
  const cases: Array<[string, Record<string, unknown>, (s: any) => unknown, unknown]> = [
    ['http issuer on loopback', { auth: { ...AUTH, authorizationServers: ['http://127.0.0.1:9000'], jwksUri: 'http://localhost:9000/jwks' } }, (s) => s.auth.issuer, 'http://127.0.0.1:9000'],
    ['explicit issuer and audience', { auth: { ...AUTH, issuer: 'https://other.example.com', audience: 'api://mcp' } }, (s) => [s.auth.issuer, s.auth.audience], ['https://other.example.com', 'api://mcp']],
    ['api key only, scopes default to required, digest lower-cased', {
      auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers, requiredScopes: ['mcp'], apiKeys: [{ name: 'ci-bot', sha256: SHA.toUpperCase() }] },
    }, (s) => s.auth.apiKeys, [{ name: 'ci-bot', sha256: SHA, scopes: ['mcp'] }]],
    ['introspection only', { auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers, introspection: { url: 'https://login.example.com/introspect', clientId: 'gw', clientSecret: 's' } } },
      (s) => s.auth.introspection.clientId, 'gw'],
    ['rateLimit burst default = 10 s worth', { rateLimit: { requestsPerMinute: 600 } }, (s) => s.rateLimit, { requestsPerMinute: 600, burst: 100 }],
    ['rateLimit burst given', { rateLimit: { requestsPerMinute: 600, burst: 5 } }, (s) => s.rateLimit, { requestsPerMinute: 600, burst: 5 }],
    ['trustProxy true', { trustProxy: true }, (s) => s.trustProxy, true],
    ['scope hierarchy, space-separated', { auth: { ...AUTH, scopeHierarchy: { 'mcp:admin': 'mcp mcp:read' } } }, (s) => s.auth.scopeHierarchy, { 'mcp:admin': ['mcp', 'mcp:read'] }],
  ]
  for (const [name, raw, pick, expected] of cases) t.same(pick(settingsFor(raw)), expected, `${name} → ${JSON.stringify(expected)}`)
})

t.test('refused inputs, each with its path', async (t) => {
  const http = { name: 'b', transport: 'http', url: 'https://b.example/mcp' }
  const cc = { type: 'clientCredentials', tokenUrl: 'https://as.example/token', clientId: 'gw', clientSecret: 's' }
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['auth not an object', { auth: 'x' }, /^auth: must be an object/],
    ['unknown auth key', { auth: { ...AUTH, colour: 1 } }, /^auth\.colour: unknown setting/],
    ['resource missing', { auth: { ...AUTH, resource: undefined } }, /^auth\.resource: must be a string/],
    ['resource with fragment', { auth: { ...AUTH, resource: 'https://mcp.example.com/mcp#x' } }, /^auth\.resource: must be an https:\/\/ URL/],
    ['resource with query', { auth: { ...AUTH, resource: 'https://mcp.example.com/mcp?a=1' } }, /^auth\.resource: must not have a query/],
    ['resource http off loopback', { auth: { ...AUTH, resource: 'http://mcp.example.com/mcp' } }, /^auth\.resource: must be an https:\/\/ URL/],
    ['resource on a look-alike host', { auth: { ...AUTH, resource: 'http://127.0.0.1.evil.example/mcp' } }, /^auth\.resource: must be an https:\/\/ URL/],
    ['authorizationServers missing', { auth: { ...AUTH, authorizationServers: undefined } }, /^auth\.authorizationServers: must be a list of strings/],
    ['no authorization server', { auth: { ...AUTH, authorizationServers: [] } }, /^auth\.authorizationServers: must list at least one/],
    ['http issuer off loopback', { auth: { ...AUTH, authorizationServers: ['http://login.example.com'] } }, /^auth\.authorizationServers\[0\]: must be an https/],
    ['http jwksUri off loopback', { auth: { ...AUTH, jwksUri: 'http://login.example.com/jwks' } }, /^auth\.jwksUri: must be an https/],
    ['two servers, no issuer', { auth: { ...AUTH, authorizationServers: ['https://a.example', 'https://b.example'] } }, /^auth\.issuer: is required/],
    ['alg none', { auth: { ...AUTH, algorithms: ['none'] } }, /^auth\.algorithms: "none" is not allowed/],
    ['alg HS256', { auth: { ...AUTH, algorithms: ['RS256', 'HS256'] } }, /^auth\.algorithms: "HS256" is not allowed/],
    ['no algorithm', { auth: { ...AUTH, algorithms: [] } }, /^auth\.algorithms: must name at least one/],
    ['offline_access required', { auth: { ...AUTH, requiredScopes: ['offline_access'] } }, /^auth\.requiredScopes: must not include offline_access/],
    ['offline_access supported', { auth: { ...AUTH, scopesSupported: ['mcp', 'offline_access'] } }, /^auth\.scopesSupported: must not include offline_access/],
    ['scope with a quote', { auth: { ...AUTH, requiredScopes: ['a"b'] } }, /^auth\.requiredScopes: "a"b" is not a valid scope token/],
    ['nothing to check tokens with', { auth: { resource: AUTH.resource, authorizationServers: AUTH.authorizationServers } }, /^auth: needs at least one of jwksUri, introspection or apiKeys/],
    ['api key digest not hex', { auth: { ...AUTH, apiKeys: [{ name: 'k', sha256: 'zz' }] } }, /^auth\.apiKeys\[0\]\.sha256: must be 64 hex digits/],
    ['api key duplicate name', { auth: { ...AUTH, apiKeys: [{ name: 'k', sha256: SHA }, { name: 'k', sha256: SHA }] } }, /^auth\.apiKeys: duplicate name "k"/],
    ['introspection without secret', { auth: { ...AUTH, introspection: { url: 'https://a.example/i', clientId: 'x' } } }, /^auth\.introspection\.clientSecret: must be a string/],
    ['clock tolerance too large', { auth: { ...AUTH, clockToleranceS: 601 } }, /^auth\.clockToleranceS: must be an integer from 0 to 600/],
    ['policy rule without names', { auth: AUTH, policy: [{ scopes: ['x'] }] }, /^policy\[0\]: must name tools, prompts or resources/],
    ['policy rule without scopes', { auth: AUTH, policy: [{ tools: ['a'], scopes: [] }] }, /^policy\[0\]\.scopes: must list at least one scope/],
    ['policy rule unknown key', { auth: AUTH, policy: [{ tools: ['a'], scopes: ['x'], tool: 1 }] }, /^policy\[0\]\.tool: unknown setting/],
    ['policy without auth', { policy: [{ tools: ['a'], scopes: ['x'] }] }, /^policy: needs auth/],
    ['rateLimit without requestsPerMinute', { rateLimit: { burst: 3 } }, /^rateLimit\.requestsPerMinute: must be an integer/],
    ['rateLimit zero', { rateLimit: { requestsPerMinute: 0 } }, /^rateLimit\.requestsPerMinute: must be an integer from 1/],
    ['trustProxy a string', { trustProxy: 'yes' }, /^trustProxy: must be true or false/],
    ['backend auth of an unknown type', { backends: [{ ...http, auth: { ...cc, type: 'basic' } }] }, /^backends\[0\]\.auth\.type: must be "clientCredentials" or "tokenExchange"/],
    ['backend token URL http off loopback', { backends: [{ ...http, auth: { ...cc, tokenUrl: 'http://as.example/token' } }] }, /^backends\[0\]\.auth\.tokenUrl: must be an https/],
    ['backend auth without secret', { backends: [{ ...http, auth: { ...cc, clientSecret: undefined } }] }, /^backends\[0\]\.auth\.clientSecret: must be a string/],
    ['backend auth and an authorization header', { backends: [{ ...http, headers: { Authorization: 'Bearer x' }, auth: cc }] }, /^backends\[0\]: set either headers\.authorization or auth/],
    ['token exchange without auth', { backends: [{ ...http, auth: { ...cc, type: 'tokenExchange' } }] }, /^backends\[0\]\.auth: tokenExchange needs auth/],
  ]
  for (const [name, raw, expected] of cases) {
    const errors = errorsOf(raw)
    t.ok(errors.some((e) => expected.test(e)), `${name} → ${expected} (got ${JSON.stringify(errors)})`)
  }
})

t.test('every error at once', async (t) => {
  const errors = errorsOf({ auth: { resource: 'nope', authorizationServers: ['ftp://x'], algorithms: ['none'] }, rateLimit: { requestsPerMinute: -1 }, trustProxy: 1, port: -1 })
  t.ok(errors.length >= 6, `6+ errors listed: ${errors.join(' | ')}`)
})

t.test('backend auth is read beside headers', async (t) => {
  const auth = { type: 'tokenExchange', tokenUrl: 'https://as.example/token', clientId: 'gw', clientSecret: 's', audience: 'https://b.example' }
  const result = validateConfig({ auth: AUTH, backends: [{ name: 'b', transport: 'http', url: 'https://b.example/mcp', auth }] })
  t.ok(result.ok && result.config.backends[0].transport === 'http' && t.same(result.config.backends[0].auth, auth), 'kept as given')
})

t.test('environment variables', async (t) => {
  const env = {
    MCP_GATEWAY_AUTH_RESOURCE: 'https://gw.example.com/mcp', MCP_GATEWAY_AUTH_SERVERS: 'https://a.example, https://b.example',
    MCP_GATEWAY_AUTH_ISSUER: 'https://a.example', MCP_GATEWAY_AUTH_JWKS_URI: 'https://a.example/jwks', MCP_GATEWAY_AUTH_REQUIRED_SCOPES: 'mcp,mcp:read',
  }
  const raw: Record<string, unknown> = { port: 1 }
  applyEnvOverrides(raw, env, ENV_SETTINGS)
  t.same(raw, { port: 1, auth: {
    resource: 'https://gw.example.com/mcp', authorizationServers: ['https://a.example', 'https://b.example'], issuer: 'https://a.example',
    jwksUri: 'https://a.example/jwks', requiredScopes: ['mcp', 'mcp:read'],
  } }, 'no auth in the file → created from the environment')
  const file: Record<string, unknown> = { auth: { ...AUTH, clockToleranceS: 5 } }
  applyEnvOverrides(file, { MCP_GATEWAY_AUTH_RESOURCE: 'https://x.example/mcp' }, ENV_SETTINGS)
  t.same(file.auth, { ...AUTH, clockToleranceS: 5, resource: 'https://x.example/mcp' }, 'file values kept, the variable wins')
})

t.test('open access warning', async (t) => {
  const open = deriveAuthSettings({ policy: [], trustProxy: false })
  t.match(openAccessWarning('0.0.0.0', open), /anyone who can reach/, '0.0.0.0 without auth → warning')
  t.equal(openAccessWarning('127.0.0.1', open), undefined, 'loopback → none')
  t.equal(openAccessWarning('::1', open), undefined, '::1 → none')
  t.equal(openAccessWarning('0.0.0.0', settingsFor({ auth: AUTH })), undefined, 'auth on → none')
})
