// OAuth 2.0 Token Exchange (RFC 8693) toward one backend (AUTH-8): the caller's validated token is
// exchanged at the backend's authorization server for a token whose audience is the backend. That
// is not passthrough (AUTH-8): the backend only ever sees a token issued for it. Held per caller
// token (so per principal) until shortly before it expires.
import { createHash } from 'node:crypto'
import type { TokenExchangeAuth } from './auth-types.ts'
import type { BackendCredentials, CredentialDeps } from './backend-credentials.ts'
import { audienceParams, CREDENTIAL_FAILURE, CredentialError, requestToken } from './token-request.ts'
import type { Principal } from './principal.ts'
import { TokenCache } from './token-cache.ts'

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'

export class TokenExchangeProvider implements BackendCredentials {
  readonly perCaller = true
  readonly #config: TokenExchangeAuth
  readonly #deps: CredentialDeps
  readonly #cache: TokenCache
  readonly #now: () => number

  constructor(config: TokenExchangeAuth, deps: CredentialDeps) {
    this.#config = config
    this.#deps = deps
    this.#now = deps.now ?? Date.now
    this.#cache = new TokenCache({ now: this.#now })
  }

  async authorization(principal: Principal): Promise<string> {
    const subjectToken = principal.bearerToken
    if (subjectToken === undefined) {
      throw new CredentialError(CREDENTIAL_FAILURE.noSubjectToken, 'token exchange needs the caller\'s OAuth access token (API keys and anonymous callers have none)')
    }
    const token = await this.#cache.obtain(cacheKey(principal, subjectToken), async () => {
      const issued = await requestToken(this.#deps.dispatcher, {
        tokenUrl: this.#config.tokenUrl,
        client: this.#config,
        params: {
          grant_type: TOKEN_EXCHANGE_GRANT,
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN_TYPE,
          requested_token_type: ACCESS_TOKEN_TYPE,
          scope: this.#config.scope,
          ...audienceParams(this.#config.audience),
        },
        now: this.#now,
      })
      // Never held past the caller's own token.
      const callerExpiry = principal.expiresAtMs ?? issued.expiresAtMs
      return { ...issued, expiresAtMs: Math.min(issued.expiresAtMs, callerExpiry) }
    })
    return `Bearer ${token.accessToken}`
  }

  invalidate(principal: Principal, value: string): void {
    const subjectToken = principal.bearerToken
    if (subjectToken !== undefined) this.#cache.invalidate(cacheKey(principal, subjectToken), value.replace(/^Bearer /, ''))
  }
}

// Per principal and per caller token: a refreshed caller token gets its own exchanged token.
function cacheKey(principal: Principal, subjectToken: string): string {
  return `${principal.id} ${createHash('sha256').update(subjectToken).digest('base64url')}`
}
