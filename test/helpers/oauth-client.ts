// An OAuthClientProvider for the SDK v2 client, as a native app implements one: tokens and the
// dynamically registered client kept in memory, the authorization URL recorded instead of opening
// a browser (the test drives the consent with consent-driver.ts), a loopback redirect URI.
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client'

export class TestOAuthClient implements OAuthClientProvider {
  readonly redirectUrl: string
  // Every authorization URL the SDK sent the "user" to.
  readonly authorizations: URL[] = []
  // Every token set saved, in order (initial grant, refreshes).
  readonly savedTokens: StoredOAuthTokens[] = []
  #client: StoredOAuthClientInformation | undefined
  #tokens: StoredOAuthTokens | undefined
  #verifier = ''
  #discovery: OAuthDiscoveryState | undefined

  constructor(redirectUrl: string) {
    this.redirectUrl = redirectUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'gateway-tests', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native',
    } as OAuthClientMetadata
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#client
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.#client = info
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens
    this.savedTokens.push(tokens)
  }

  // Spoil the access token (keeping the refresh token), as if it had expired at the server.
  spoilAccessToken(): void {
    if (this.#tokens) this.#tokens = { ...this.#tokens, access_token: 'expired-or-revoked' }
  }

  redirectToAuthorization(url: URL): void {
    this.authorizations.push(url)
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier
  }

  codeVerifier(): string {
    return this.#verifier
  }

  // The authorization server the redirect went to (checked again on the callback leg).
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery
  }
}
