// Authentication of one request to the MCP endpoint (AUTH-6, AUTH-12, AUTH-16): the bearer token
// from the Authorization header, never from the query string; checked as an API key, a JWT, or by
// introspection; then the scopes every request needs. Each refusal is a catalogue error carrying
// its WWW-Authenticate challenge.
import type { Dispatcher } from 'undici'
import type { GatewayError } from '../errors.ts'
import type { AuthConfig } from './auth-types.ts'
import { metadataUrl } from './auth-urls.ts'
import { ApiKeys } from './api-keys.ts'
import { Challenger } from './challenge.ts'
import { Introspector } from './introspection.ts'
import { JWKS_MAX_AGE_MS, JwtVerifier } from './jwt-verifier.ts'
import type { Policy } from './policy.ts'
import type { Principal } from './principal.ts'
import { TOKEN_FAILURE, TokenError } from './token-error.ts'
import { VerifiedTokens } from './verified-tokens.ts'

// RFC 6750 §2.1 b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

export interface AuthRequest {
  authorization: string | undefined
  // The request target (path and query), for refusing tokens in the URL.
  url: string | undefined
}

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; error: GatewayError; cause?: unknown }

export interface AuthenticatorOptions {
  config: AuthConfig
  policy: Policy
  dispatcher: Dispatcher
  now?: () => number
}

export function hasQueryToken(url: string | undefined): boolean {
  const q = url?.indexOf('?') ?? -1
  return q !== -1 && new URLSearchParams(url!.slice(q + 1)).has('access_token')
}

export class Authenticator {
  readonly challenger: Challenger
  readonly #config: AuthConfig
  readonly #policy: Policy
  readonly #apiKeys: ApiKeys
  readonly #jwt: JwtVerifier | undefined
  readonly #introspector: Introspector | undefined
  readonly #verified: VerifiedTokens

  constructor(options: AuthenticatorOptions) {
    const { config, dispatcher } = options
    this.#config = config
    this.#policy = options.policy
    this.challenger = new Challenger({ resourceMetadata: metadataUrl(config.resource), requiredScopes: config.requiredScopes })
    this.#apiKeys = new ApiKeys(config.apiKeys)
    const common = { issuer: config.issuer, audience: config.audience, clockToleranceS: config.clockToleranceS, dispatcher }
    if (config.jwksUri) this.#jwt = new JwtVerifier({ ...common, jwksUri: config.jwksUri, algorithms: config.algorithms })
    if (config.introspection) this.#introspector = new Introspector({ ...common, config: config.introspection, now: options.now })
    // A verified JWT is held (bounded, never past its exp, nor longer than jose holds the keys).
    this.#verified = new VerifiedTokens({ maxAgeMs: JWKS_MAX_AGE_MS, toleranceMs: config.clockToleranceS * 1000, now: options.now })
  }

  async authenticate(request: AuthRequest): Promise<AuthOutcome> {
    if (hasQueryToken(request.url)) return { ok: false, error: this.challenger.tokenInQuery() }
    if (request.authorization === undefined || request.authorization === '') return { ok: false, error: this.challenger.required() }
    const match = BEARER.exec(request.authorization)
    if (match === null) return { ok: false, error: this.challenger.invalidToken('expected "Authorization: Bearer <token>"') }
    let principal: Principal
    try {
      principal = await this.#verify(match[1])
    } catch (err) {
      if (!(err instanceof TokenError)) throw err
      return { ok: false, error: this.#refusal(err), cause: err }
    }
    if (!this.#policy.hasScopes(principal, this.#config.requiredScopes)) {
      return { ok: false, error: this.challenger.insufficientScope(this.#config.requiredScopes, 'the token lacks the scopes every request needs') }
    }
    return { ok: true, principal }
  }

  async #verify(token: string): Promise<Principal> {
    const key = this.#apiKeys.match(token)
    if (key) return key
    const cached = this.#verified.get(token)
    if (cached) return cached
    if (this.#jwt && JWT_SHAPE.test(token)) {
      const principal = await this.#jwt.verify(token)
      this.#verified.set(token, principal)
      return principal
    }
    if (this.#introspector) return this.#introspector.verify(token)
    throw new TokenError(TOKEN_FAILURE.invalid, this.#jwt ? 'the token is not a JWT' : 'the token is not a known key')
  }

  #refusal(err: TokenError): GatewayError {
    return err.failure === TOKEN_FAILURE.invalid ? this.challenger.invalidToken(err.message) : this.challenger.unavailable(err.message)
  }
}
