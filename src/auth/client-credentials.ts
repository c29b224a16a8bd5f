// OAuth client credentials (RFC 6749 §4.4): the gateway's own token for a backend, shared by every
// caller (AUTH-8: the gateway then does all per-user access control), held until shortly before it
// expires.
import type { ClientCredentialsAuth } from './auth-types.ts'
import type { BackendCredentials, CredentialDeps } from './backend-credentials.ts'
import { audienceParams, requestToken } from './token-request.ts'
import type { Principal } from './principal.ts'
import { TokenCache } from './token-cache.ts'

const KEY = 'gateway'

export class ClientCredentialsProvider implements BackendCredentials {
  readonly perCaller = false
  readonly #config: ClientCredentialsAuth
  readonly #deps: CredentialDeps
  readonly #cache: TokenCache
  readonly #now: () => number

  constructor(config: ClientCredentialsAuth, deps: CredentialDeps) {
    this.#config = config
    this.#deps = deps
    this.#now = deps.now ?? Date.now
    this.#cache = new TokenCache({ now: this.#now })
  }

  async authorization(_principal: Principal): Promise<string> {
    const token = await this.#cache.obtain(KEY, () => requestToken(this.#deps.dispatcher, {
      tokenUrl: this.#config.tokenUrl,
      client: this.#config,
      params: { grant_type: 'client_credentials', scope: this.#config.scope, ...audienceParams(this.#config.audience) },
      now: this.#now,
    }))
    return `Bearer ${token.accessToken}`
  }

  invalidate(_principal: Principal, value: string): void {
    this.#cache.invalidate(KEY, value.replace(/^Bearer /, ''))
  }
}
