// The authentication settings as entries of the one config schema (src/config/schema.ts): `auth`,
// `policy`, `rateLimit`, `trustProxy`, and an HTTP backend's `auth`. What a schema entry cannot say
// (derived defaults, rules across settings) is checkAuthSettings in auth-config.ts.
import type { Settings } from '../config/setting-types.ts'

// https://…, or http:// toward a loopback host only; never a fragment.
export const ENDPOINT_URL = /^(?:https:\/\/[^\s#/?]+|http:\/\/(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?)(?:[/?][^\s#]*)?$/i
const URL_PROBLEM = 'must be an https:// URL (http:// only for a loopback host), without a fragment'
const URL_RULE = { pattern: ENDPOINT_URL, patternProblem: URL_PROBLEM } as const

const API_KEY = {
  name: { type: 'string', pattern: /^[A-Za-z0-9_.-]{1,64}$/, doc: 'names the principal (logs, metrics, sealed state); never the key' },
  sha256: { type: 'string', pattern: /^[0-9a-fA-F]{64}$/, patternProblem: 'must be 64 hex digits (the SHA-256 of the key)', doc: 'hex SHA-256 of the key' },
  scopes: { type: 'stringList', optional: true, doc: 'scopes the key grants; default: auth.requiredScopes' },
} as const satisfies Settings

const INTROSPECTION = {
  url: { type: 'string', ...URL_RULE, doc: 'RFC 7662 introspection endpoint (opaque tokens)' },
  clientId: { type: 'string', doc: 'the gateway\'s client id at the authorization server' },
  clientSecret: { type: 'string', doc: 'its secret (client_secret_basic); never logged' },
} as const satisfies Settings

export const AUTH_SETTINGS = {
  resource: { type: 'string', ...URL_RULE, env: 'MCP_GATEWAY_AUTH_RESOURCE', doc: 'the gateway\'s canonical URI (RFC 8707, RFC 9728 resource)' },
  authorizationServers: { type: 'stringList', env: 'MCP_GATEWAY_AUTH_SERVERS', doc: 'issuers clients get tokens from (PRM authorization_servers)' },
  issuer: { type: 'string', ...URL_RULE, optional: true, env: 'MCP_GATEWAY_AUTH_ISSUER', doc: 'expected `iss`; default: the one authorization server' },
  jwksUri: { type: 'string', ...URL_RULE, optional: true, env: 'MCP_GATEWAY_AUTH_JWKS_URI', doc: 'the issuer\'s JWKS, for JWT access tokens' },
  audience: { type: 'string', optional: true, doc: 'what `aud` must contain; default: resource' },
  algorithms: { type: 'stringList', default: ['RS256', 'ES256', 'EdDSA'], doc: 'accepted JWS algorithms (asymmetric only)' },
  requiredScopes: { type: 'stringList', default: [], env: 'MCP_GATEWAY_AUTH_REQUIRED_SCOPES', doc: 'scopes every request needs' },
  scopesSupported: { type: 'stringList', optional: true, doc: 'PRM scopes_supported; default: requiredScopes and every policy scope' },
  scopeHierarchy: { type: 'stringMap', doc: 'AUTH-10: scope → the space-separated scopes it covers' },
  clockToleranceS: { type: 'integer', default: 30, max: 600, doc: 'leeway for exp and nbf' },
  apiKeys: { type: 'list', of: { type: 'object', settings: API_KEY, doc: 'one API key' }, doc: 'static bearer keys, by SHA-256' },
  introspection: { type: 'object', optional: true, settings: INTROSPECTION, doc: 'RFC 7662 introspection of opaque tokens' },
} as const satisfies Settings

const POLICY_RULE = {
  tools: { type: 'stringList', default: [], doc: 'globs over namespaced tool names' },
  prompts: { type: 'stringList', default: [], doc: 'globs over namespaced prompt names' },
  resources: { type: 'stringList', default: [], doc: 'globs over resource URIs (and template URIs)' },
  scopes: { type: 'stringList', doc: 'every one of these is needed for what the globs match' },
} as const satisfies Settings

const RATE_LIMIT = {
  requestsPerMinute: { type: 'integer', min: 1, max: 10_000_000, doc: 'sustained requests per principal (per address when anonymous)' },
  burst: { type: 'integer', optional: true, min: 1, max: 10_000_000, doc: 'bucket size; default: ten seconds\' worth' },
} as const satisfies Settings

// Top-level entries of GATEWAY_SETTINGS.
export const AUTH_GATEWAY_SETTINGS = {
  auth: { type: 'object', optional: true, settings: AUTH_SETTINGS, doc: 'OAuth 2.1 resource server; absent: open' },
  policy: { type: 'list', of: { type: 'object', settings: POLICY_RULE, doc: 'one rule' }, doc: 'scopes needed per tool, prompt, resource' },
  rateLimit: { type: 'object', optional: true, settings: RATE_LIMIT, doc: 'token bucket per principal' },
  trustProxy: { type: 'boolean', default: false, doc: 'client address from X-Forwarded-For (behind a load balancer)' },
} as const satisfies Settings

const TOKEN_CLIENT = {
  tokenUrl: { type: 'string', ...URL_RULE, doc: 'the backend\'s authorization server token endpoint' },
  clientId: { type: 'string', doc: 'the gateway\'s client id there' },
  clientSecret: { type: 'string', doc: 'its secret (client_secret_basic); never logged' },
  scope: { type: 'string', optional: true, doc: 'scope to ask for' },
  audience: { type: 'string', optional: true, doc: 'the backend as audience (sent as audience, and as resource when a URI)' },
} as const satisfies Settings

// An HTTP backend's `auth`, beside `headers`: the gateway's own credential (AUTH-8).
export const BACKEND_AUTH_SETTING = {
  type: 'variant',
  key: 'type',
  variants: { clientCredentials: TOKEN_CLIENT, tokenExchange: TOKEN_CLIENT },
  optional: true,
  doc: 'clientCredentials: the gateway\'s own token; tokenExchange: the caller\'s token exchanged for one for this backend (RFC 8693)',
} as const
