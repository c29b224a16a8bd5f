// The gateway's credentials toward HTTP backends (AUTH-8): the Authorization value for one
// call, obtained from the backend's authorization server, never the client's own token. A backend
// that answers 401 gets one retry with a fresh token (the HTTP backend calls `invalidate`).
import type { Dispatcher } from 'undici'
import type { BackendAuthConfig } from './auth-types.ts'
import { ClientCredentialsProvider } from './client-credentials.ts'
import type { Principal } from './principal.ts'
import { TokenExchangeProvider } from './token-exchange.ts'

export { CREDENTIAL_FAILURE, CredentialError, type CredentialFailure } from './token-request.ts'

export interface CredentialDeps {
  dispatcher: Dispatcher
  now?: () => number
}

export interface BackendCredentials {
  // Token exchange: a credential per caller; the gateway's own requests have none.
  readonly perCaller: boolean
  // The Authorization header value for a call made on behalf of `principal`.
  authorization(principal: Principal): Promise<string>
  // The backend refused `value` (401): the next call obtains a fresh one.
  invalidate(principal: Principal, value: string): void
}

export function createBackendCredentials(config: BackendAuthConfig, deps: CredentialDeps): BackendCredentials {
  return config.type === 'clientCredentials' ? new ClientCredentialsProvider(config, deps) : new TokenExchangeProvider(config, deps)
}
