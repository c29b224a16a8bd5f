// Validation of `auth`, `policy`, `rateLimit` and `trustProxy` (README "Authentication"): pure,
// defaults filled in, every error listed. Also the MCP_GATEWAY_AUTH_* environment overrides.
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import type { ApiKeyConfig, AuthConfig, AuthSettings, IntrospectionConfig, PolicyRule, RateLimitConfig } from './auth-types.ts'
import { checkResourceUrl, isLoopbackHost } from './auth-urls.ts'
import { Checks } from './config-checks.ts'

export const DEFAULT_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'EdDSA']
// Asymmetric JWS algorithms: `none` and HS* never (HS256 "verified" with a public key is forgery).
export const ALLOWED_ALGORITHMS: ReadonlySet<string> = new Set([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
])
export const DEFAULT_CLOCK_TOLERANCE_S = 30
const AUTH_KEYS = new Set(['resource', 'authorizationServers', 'issuer', 'jwksUri', 'audience', 'algorithms', 'requiredScopes',
  'scopesSupported', 'scopeHierarchy', 'clockToleranceS', 'apiKeys', 'introspection'])
const API_KEY_KEYS = new Set(['name', 'sha256', 'scopes'])
const INTROSPECTION_KEYS = new Set(['url', 'clientId', 'clientSecret'])
const RULE_KEYS = new Set(['tools', 'prompts', 'resources', 'scopes'])
const RATE_KEYS = new Set(['requestsPerMinute', 'burst'])
const NAME = /^[A-Za-z0-9_.-]{1,64}$/
// AUTH-11: refresh tokens are not a resource requirement.
const OFFLINE_ACCESS = 'offline_access'

function validateApiKeys(c: Checks, raw: unknown, requiredScopes: string[]): ApiKeyConfig[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) {
    c.add('auth.apiKeys', 'must be a list')
    return []
  }
  const keys = raw.flatMap((entry: unknown, i): ApiKeyConfig[] => {
    const path = `auth.apiKeys[${i}]`
    const o = c.object(path, entry, API_KEY_KEYS)
    if (!o) return []
    const name = c.string(`${path}.name`, o.name)
    if (name !== '' && !NAME.test(name)) c.add(`${path}.name`, `must match ${NAME}`)
    const sha256 = c.string(`${path}.sha256`, o.sha256).toLowerCase()
    if (sha256 !== '' && !/^[0-9a-f]{64}$/.test(sha256)) c.add(`${path}.sha256`, 'must be 64 hex digits (the SHA-256 of the key)')
    return [{ name, sha256, scopes: c.scopeList(`${path}.scopes`, o.scopes, requiredScopes) }]
  })
  const names = new Set<string>()
  for (const key of keys) {
    if (names.has(key.name)) c.add('auth.apiKeys', `duplicate name "${key.name}"`)
    names.add(key.name)
  }
  return keys
}

function validateIntrospection(c: Checks, raw: unknown): IntrospectionConfig | undefined {
  if (raw === undefined) return undefined
  const o = c.object('auth.introspection', raw, INTROSPECTION_KEYS)
  if (!o) return undefined
  return {
    url: c.url('auth.introspection.url', o.url),
    clientId: c.string('auth.introspection.clientId', o.clientId),
    clientSecret: c.string('auth.introspection.clientSecret', o.clientSecret),
  }
}

function validateHierarchy(c: Checks, raw: unknown): Record<string, string[]> {
  if (raw === undefined) return {}
  if (!isJsonObject(raw)) {
    c.add('auth.scopeHierarchy', 'must be an object of scope lists')
    return {}
  }
  return Object.fromEntries(Object.entries(raw).map(([scope, covered]) => [scope, c.scopeList(`auth.scopeHierarchy.${scope}`, covered, [])]))
}

function validateAlgorithms(c: Checks, raw: unknown): string[] {
  const algorithms = c.stringList('auth.algorithms', raw, DEFAULT_ALGORITHMS)
  if (algorithms.length === 0) c.add('auth.algorithms', 'must name at least one algorithm')
  for (const alg of algorithms) {
    if (!ALLOWED_ALGORITHMS.has(alg)) c.add('auth.algorithms', `"${alg}" is not allowed (asymmetric JWS algorithms only: ${[...ALLOWED_ALGORITHMS].join(', ')})`)
  }
  return algorithms
}

function refuseOfflineAccess(c: Checks, path: string, scopes: string[]): void {
  if (scopes.includes(OFFLINE_ACCESS)) c.add(path, 'must not include offline_access (AUTH-11)')
}

function validateServers(c: Checks, o: JsonObject): { servers: string[]; issuer: string } {
  const servers = c.stringList('auth.authorizationServers', o.authorizationServers, [])
  if (servers.length === 0) c.add('auth.authorizationServers', 'must list at least one authorization server (AUTH-3)')
  servers.forEach((server, i) => c.url(`auth.authorizationServers[${i}]`, server))
  if (o.issuer === undefined && servers.length > 1) c.add('auth.issuer', 'is required when more than one authorization server is listed')
  const issuer = o.issuer === undefined ? (servers[0] ?? '') : c.url('auth.issuer', o.issuer)
  return { servers, issuer }
}

function validateAuth(c: Checks, raw: unknown, policy: PolicyRule[]): AuthConfig | undefined {
  if (raw === undefined) return undefined
  const o = c.object('auth', raw, AUTH_KEYS)
  if (!o) return undefined
  const resource = c.string('auth.resource', o.resource)
  const resourceProblem = resource === '' ? undefined : checkResourceUrl(resource)
  if (resourceProblem !== undefined) c.add('auth.resource', resourceProblem)
  const { servers, issuer } = validateServers(c, o)
  const requiredScopes = c.scopeList('auth.requiredScopes', o.requiredScopes, [])
  refuseOfflineAccess(c, 'auth.requiredScopes', requiredScopes)
  const derived = [...new Set([...requiredScopes, ...policy.flatMap((rule) => rule.scopes)])].filter((s) => s !== OFFLINE_ACCESS)
  const scopesSupported = c.scopeList('auth.scopesSupported', o.scopesSupported, derived)
  refuseOfflineAccess(c, 'auth.scopesSupported', scopesSupported)
  const config: AuthConfig = {
    resource, authorizationServers: servers, issuer,
    audience: o.audience === undefined ? resource : c.string('auth.audience', o.audience),
    algorithms: validateAlgorithms(c, o.algorithms),
    requiredScopes, scopesSupported, scopeHierarchy: validateHierarchy(c, o.scopeHierarchy),
    clockToleranceS: c.integer('auth.clockToleranceS', o.clockToleranceS, DEFAULT_CLOCK_TOLERANCE_S, { min: 0, max: 600 }),
    apiKeys: validateApiKeys(c, o.apiKeys, requiredScopes),
  }
  if (o.jwksUri !== undefined) config.jwksUri = c.url('auth.jwksUri', o.jwksUri)
  const introspection = validateIntrospection(c, o.introspection)
  if (introspection) config.introspection = introspection
  if (!config.jwksUri && !introspection && config.apiKeys.length === 0) {
    c.add('auth', 'needs at least one of jwksUri, introspection or apiKeys to check tokens with')
  }
  return config
}

function validateRule(c: Checks, raw: unknown, path: string): PolicyRule | undefined {
  const o = c.object(path, raw, RULE_KEYS)
  if (!o) return undefined
  const rule: PolicyRule = {
    tools: c.stringList(`${path}.tools`, o.tools, []),
    prompts: c.stringList(`${path}.prompts`, o.prompts, []),
    resources: c.stringList(`${path}.resources`, o.resources, []),
    scopes: c.scopeList(`${path}.scopes`, o.scopes, []),
  }
  if (rule.tools.length + rule.prompts.length + rule.resources.length === 0) c.add(path, 'must name tools, prompts or resources')
  if (rule.scopes.length === 0) c.add(`${path}.scopes`, 'must list at least one scope')
  return rule
}

function validatePolicy(c: Checks, raw: unknown): PolicyRule[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) {
    c.add('policy', 'must be a list of rules')
    return []
  }
  return raw.flatMap((rule: unknown, i) => validateRule(c, rule, `policy[${i}]`) ?? [])
}

function validateRateLimit(c: Checks, raw: unknown): RateLimitConfig | undefined {
  if (raw === undefined) return undefined
  const o = c.object('rateLimit', raw, RATE_KEYS)
  if (!o) return undefined
  const requestsPerMinute = c.integer('rateLimit.requestsPerMinute', o.requestsPerMinute, 0, { min: 1, max: 10_000_000 })
  if (o.requestsPerMinute === undefined) c.add('rateLimit.requestsPerMinute', 'is required')
  // Default burst: ten seconds' worth.
  const burst = c.integer('rateLimit.burst', o.burst, Math.max(1, Math.ceil(requestsPerMinute / 6)), { min: 1, max: 10_000_000 })
  return { requestsPerMinute, burst }
}

export type AuthSettingsResult = { ok: true; settings: AuthSettings } | { ok: false; errors: string[] }

// `raw` is the whole config object; only the four authentication settings are read.
export function validateAuthSettings(raw: JsonObject): AuthSettingsResult {
  const c = new Checks()
  const policy = validatePolicy(c, raw.policy)
  const settings: AuthSettings = { policy, trustProxy: c.boolean('trustProxy', raw.trustProxy, false) }
  const auth = validateAuth(c, raw.auth, policy)
  if (auth) settings.auth = auth
  const rateLimit = validateRateLimit(c, raw.rateLimit)
  if (rateLimit) settings.rateLimit = rateLimit
  if (policy.length > 0 && !auth) c.add('policy', 'needs auth (scopes come from validated tokens)')
  return c.errors.length > 0 ? { ok: false, errors: c.errors } : { ok: true, settings }
}

// Every MCP_GATEWAY_AUTH_* variable and the auth setting it overrides.
export const AUTH_ENV_SETTINGS = {
  MCP_GATEWAY_AUTH_RESOURCE: { key: 'resource', kind: 'string' },
  MCP_GATEWAY_AUTH_SERVERS: { key: 'authorizationServers', kind: 'list' },
  MCP_GATEWAY_AUTH_ISSUER: { key: 'issuer', kind: 'string' },
  MCP_GATEWAY_AUTH_JWKS_URI: { key: 'jwksUri', kind: 'string' },
  MCP_GATEWAY_AUTH_REQUIRED_SCOPES: { key: 'requiredScopes', kind: 'list' },
} as const

// The environment wins over the file; any variable set creates `auth` if the file had none.
export function applyAuthEnv(raw: JsonObject, env: Readonly<Record<string, string | undefined>>): JsonObject {
  const overrides: JsonObject = {}
  for (const [name, setting] of Object.entries(AUTH_ENV_SETTINGS)) {
    const value = env[name]?.trim()
    if (value === undefined || value === '') continue
    overrides[setting.key] = setting.kind === 'list' ? value.split(/[\s,]+/).filter((v) => v !== '') : value
  }
  if (Object.keys(overrides).length === 0) return raw
  const auth = isJsonObject(raw.auth) ? raw.auth : {}
  return { ...raw, auth: { ...auth, ...overrides } }
}

// No auth on a non-loopback listener: anyone who can reach the port may call every tool.
export function openAccessWarning(host: string, settings: AuthSettings): string | undefined {
  if (settings.auth || isLoopbackHost(host.replace(/^\[|\]$/g, ''))) return undefined
  return `no "auth" configured and listening on ${host}: anyone who can reach the gateway may call every tool of every backend`
}
