// What the schema entries (auth-schema.ts) cannot say: defaults that derive from other settings
// (issuer, audience, scopesSupported, an API key's scopes, the rate-limit burst) and rules across
// settings, reported with the schema's own errors in one pass. Pure.
import type { GatewayConfig } from '../config/types.ts'
import type { ApiKeyConfig, AuthConfig, AuthSettings, RawAuthConfig } from './auth-types.ts'
import { isLoopbackHost } from './auth-urls.ts'
import { ENDPOINT_URL } from './auth-schema.ts'

// Asymmetric JWS algorithms: `none` and HS* never (HS256 "verified" with a public key is forgery).
export const ALLOWED_ALGORITHMS: ReadonlySet<string> = new Set([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
])
// AUTH-11: refresh tokens are not a resource requirement.
const OFFLINE_ACCESS = 'offline_access'
// RFC 6749 §3.3 scope-token.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

type Report = (path: string, problem: string) => void
type AuthPart = Pick<GatewayConfig, 'auth' | 'policy' | 'rateLimit' | 'trustProxy'>

function deriveAuth(raw: RawAuthConfig, policy: GatewayConfig['policy']): AuthConfig {
  const policyScopes = policy.flatMap((rule) => rule.scopes)
  const apiKeys: ApiKeyConfig[] = raw.apiKeys.map((k) => ({ name: k.name, sha256: k.sha256.toLowerCase(), scopes: k.scopes ?? raw.requiredScopes }))
  const hierarchy = Object.fromEntries(Object.entries(raw.scopeHierarchy).map(([scope, covered]) => [scope, covered.split(' ').filter((s) => s !== '')]))
  const auth: AuthConfig = {
    resource: raw.resource,
    authorizationServers: raw.authorizationServers,
    issuer: raw.issuer ?? raw.authorizationServers[0] ?? '',
    audience: raw.audience ?? raw.resource,
    algorithms: raw.algorithms,
    requiredScopes: raw.requiredScopes,
    scopesSupported: raw.scopesSupported ?? [...new Set([...raw.requiredScopes, ...policyScopes])].filter((s) => s !== OFFLINE_ACCESS),
    scopeHierarchy: hierarchy,
    clockToleranceS: raw.clockToleranceS,
    apiKeys,
  }
  if (raw.jwksUri !== undefined) auth.jwksUri = raw.jwksUri
  if (raw.introspection !== undefined) auth.introspection = raw.introspection
  return auth
}

// The typed settings build() uses (from a config that validated).
export function deriveAuthSettings(config: AuthPart): AuthSettings {
  const settings: AuthSettings = { policy: config.policy, trustProxy: config.trustProxy }
  if (config.auth) settings.auth = deriveAuth(config.auth, config.policy)
  if (config.rateLimit) {
    const { requestsPerMinute, burst } = config.rateLimit
    // Default burst: ten seconds' worth.
    settings.rateLimit = { requestsPerMinute, burst: burst ?? Math.max(1, Math.ceil(requestsPerMinute / 6)) }
  }
  return settings
}

function checkScopes(report: Report, path: string, scopes: readonly string[] | undefined, refuseOffline = false): void {
  for (const scope of scopes ?? []) {
    if (!SCOPE_TOKEN.test(scope)) report(path, `"${scope}" is not a valid scope token`)
  }
  if (refuseOffline && scopes?.includes(OFFLINE_ACCESS)) report(path, 'must not include offline_access (AUTH-11)')
}

function checkAuth(auth: Partial<RawAuthConfig>, report: Report): void {
  const servers = auth.authorizationServers ?? []
  if (auth.authorizationServers !== undefined && servers.length === 0) report('auth.authorizationServers', 'must list at least one authorization server (AUTH-3)')
  servers.forEach((server, i) => {
    if (!ENDPOINT_URL.test(server)) report(`auth.authorizationServers[${i}]`, 'must be an https:// URL (http:// only for a loopback host)')
  })
  if (auth.issuer === undefined && servers.length > 1) report('auth.issuer', 'is required when more than one authorization server is listed')
  if (auth.resource?.includes('?')) report('auth.resource', 'must not have a query (RFC 8707)')
  if (auth.algorithms?.length === 0) report('auth.algorithms', 'must name at least one algorithm')
  for (const alg of auth.algorithms ?? []) {
    if (!ALLOWED_ALGORITHMS.has(alg)) report('auth.algorithms', `"${alg}" is not allowed (asymmetric JWS algorithms only: ${[...ALLOWED_ALGORITHMS].join(', ')})`)
  }
  checkScopes(report, 'auth.requiredScopes', auth.requiredScopes, true)
  checkScopes(report, 'auth.scopesSupported', auth.scopesSupported, true)
  for (const [scope, covered] of Object.entries(auth.scopeHierarchy ?? {})) checkScopes(report, `auth.scopeHierarchy.${scope}`, [scope, ...covered.split(' ').filter((s) => s !== '')])
  const names = new Set<string>()
  for (const [i, key] of (auth.apiKeys ?? []).entries()) {
    checkScopes(report, `auth.apiKeys[${i}].scopes`, key.scopes)
    if (names.has(key.name)) report('auth.apiKeys', `duplicate name "${key.name}"`)
    names.add(key.name)
  }
  if (auth.jwksUri === undefined && auth.introspection === undefined && (auth.apiKeys ?? []).length === 0) {
    report('auth', 'needs at least one of jwksUri, introspection or apiKeys to check tokens with')
  }
}

function checkBackendAuth(config: Partial<GatewayConfig>, report: Report): void {
  for (const [i, backend] of (config.backends ?? []).entries()) {
    if (backend.transport !== 'http' || backend.auth === undefined) continue
    if (Object.keys(backend.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) {
      report(`backends[${i}]`, 'set either headers.authorization or auth, not both')
    }
    if (backend.auth.type === 'tokenExchange' && config.auth === undefined) report(`backends[${i}].auth`, 'tokenExchange needs auth (a caller token to exchange)')
  }
}

// Runs over whatever the schema could read (values it refused are absent), so its problems are
// listed together with the schema's.
export function checkAuthSettings(config: Partial<GatewayConfig>, report: Report): void {
  if (config.auth) checkAuth(config.auth, report)
  for (const [i, rule] of (config.policy ?? []).entries()) {
    if (rule.tools.length + rule.prompts.length + rule.resources.length === 0) report(`policy[${i}]`, 'must name tools, prompts or resources')
    if (rule.scopes?.length === 0) report(`policy[${i}].scopes`, 'must list at least one scope')
    checkScopes(report, `policy[${i}].scopes`, rule.scopes)
  }
  if ((config.policy ?? []).length > 0 && config.auth === undefined) report('policy', 'needs auth (scopes come from validated tokens)')
  checkBackendAuth(config, report)
}

// No auth on a non-loopback listener: anyone who can reach the port may call every tool.
export function openAccessWarning(host: string, settings: AuthSettings): string | undefined {
  if (settings.auth || isLoopbackHost(host.replace(/^\[|\]$/g, ''))) return undefined
  return `no "auth" configured and listening on ${host}: anyone who can reach the gateway may call every tool of every backend`
}
