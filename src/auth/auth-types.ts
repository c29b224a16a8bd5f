// The authentication, policy and rate-limit settings (README "Authentication"), as validated by
// auth-config.ts. Frozen with the rest of the config.

export interface ApiKeyConfig {
  // Names the principal in logs, metrics and sealed state; never the key itself.
  name: string
  // Lower-case hex SHA-256 of the key: the key itself is never in the config.
  sha256: string
  scopes: string[]
}

// RFC 7662: the gateway authenticates to the introspection endpoint as a confidential client.
export interface IntrospectionConfig {
  url: string
  clientId: string
  clientSecret: string
}

export interface AuthConfig {
  // The gateway's canonical URI (RFC 8707, RFC 9728 `resource`).
  resource: string
  authorizationServers: string[]
  issuer: string
  jwksUri?: string
  // What `aud` must contain; the resource unless set.
  audience: string
  // Asymmetric JWS algorithms only: never `none`, never HMAC (a public key is not a secret).
  algorithms: string[]
  // Needed for any request at all; the scope of a 401 challenge.
  requiredScopes: string[]
  scopesSupported: string[]
  // AUTH-10: a granted scope → the narrower scopes it covers (transitively). Empty: exact match.
  scopeHierarchy: Record<string, string[]>
  clockToleranceS: number
  apiKeys: ApiKeyConfig[]
  introspection?: IntrospectionConfig
}

// Glob patterns (`*` = any run of characters) over namespaced tool/prompt names and resource URIs.
export interface PolicyRule {
  tools: string[]
  prompts: string[]
  resources: string[]
  // Every one of these is needed for anything a pattern matches.
  scopes: string[]
}

export interface RateLimitConfig {
  requestsPerMinute: number
  burst: number
}

// The gateway's own credential toward one HTTP backend (AUTH-8, G12): never the client's token.
export interface ClientCredentialsAuth {
  type: 'clientCredentials'
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope?: string
  audience?: string
}

// RFC 8693: the caller's validated token exchanged for one whose audience is the backend (G12 c).
export interface TokenExchangeAuth {
  type: 'tokenExchange'
  tokenUrl: string
  clientId: string
  clientSecret: string
  audience?: string
  scope?: string
}

export type BackendAuthConfig = ClientCredentialsAuth | TokenExchangeAuth

export interface AuthSettings {
  // Absent: the endpoint is open (as before authentication existed).
  auth?: AuthConfig
  policy: PolicyRule[]
  rateLimit?: RateLimitConfig
  // Take the client address from X-Forwarded-For (behind a load balancer).
  trustProxy: boolean
}
