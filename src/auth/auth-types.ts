// The authentication, policy and rate-limit settings as the gateway uses them: the schema entries
// (auth-schema.ts) as validated, with the defaults that derive from other settings filled in
// (auth-config.ts deriveAuthSettings).
import type { GatewayConfig, HttpBackendConfig } from '../config/types.ts'

// As read by the schema (defaults that depend on other settings not yet applied).
export type RawAuthConfig = NonNullable<GatewayConfig['auth']>

export interface ApiKeyConfig {
  // Names the principal in logs, metrics and sealed state; never the key itself.
  name: string
  // Lower-case hex SHA-256 of the key: the key itself is never in the config.
  sha256: string
  scopes: string[]
}

export type IntrospectionConfig = NonNullable<RawAuthConfig['introspection']>

export interface AuthConfig {
  resource: string
  authorizationServers: string[]
  issuer: string
  jwksUri?: string
  audience: string
  algorithms: string[]
  requiredScopes: string[]
  scopesSupported: string[]
  // AUTH-10: a granted scope → the narrower scopes it covers (transitively). Empty: exact match.
  scopeHierarchy: Record<string, string[]>
  clockToleranceS: number
  apiKeys: ApiKeyConfig[]
  introspection?: IntrospectionConfig
}

export type PolicyRule = GatewayConfig['policy'][number]

export interface RateLimitConfig {
  requestsPerMinute: number
  burst: number
}

export type BackendAuthConfig = NonNullable<HttpBackendConfig['auth']>
export type ClientCredentialsAuth = Extract<BackendAuthConfig, { type: 'clientCredentials' }>
export type TokenExchangeAuth = Extract<BackendAuthConfig, { type: 'tokenExchange' }>

export interface AuthSettings {
  // Absent: the endpoint is open (as before authentication existed).
  auth?: AuthConfig
  policy: PolicyRule[]
  rateLimit?: RateLimitConfig
  // Take the client address from X-Forwarded-For (behind a load balancer).
  trustProxy: boolean
}
