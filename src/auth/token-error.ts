// Why a presented credential was not accepted. `invalid`: the token's fault (401 invalid_token);
// `unavailable`: the gateway could not check it (keys or introspection unreachable, 503). The
// message is a description safe to send to the client: it never contains the token.
export const TOKEN_FAILURE = {
  invalid: 'invalid',
  unavailable: 'unavailable',
} as const
export type TokenFailure = (typeof TOKEN_FAILURE)[keyof typeof TOKEN_FAILURE]

export class TokenError extends Error {
  readonly failure: TokenFailure

  constructor(failure: TokenFailure, description: string, options?: { cause?: unknown }) {
    super(description, options)
    this.name = 'TokenError'
    this.failure = failure
  }
}

export function invalidToken(description: string, cause?: unknown): TokenError {
  return new TokenError(TOKEN_FAILURE.invalid, description, { cause })
}

export function verifierUnavailable(description: string, cause?: unknown): TokenError {
  return new TokenError(TOKEN_FAILURE.unavailable, description, { cause })
}

// OAuth scopes from a token or introspection reply: `scope` (RFC 9068, RFC 7662: space-separated)
// or `scp` (Entra ID, Okta: a string or a list).
export function readScopes(claims: Record<string, unknown>): string[] {
  const source = claims.scope ?? claims.scp
  if (typeof source === 'string') return source.split(' ').filter((s) => s !== '')
  if (Array.isArray(source)) return source.filter((s): s is string => typeof s === 'string' && s !== '')
  return []
}

// The OAuth client the token was issued to: `client_id` (RFC 9068), `azp` (OIDC, Entra v2),
// `appid` (Entra v1).
export function readClientId(claims: Record<string, unknown>): string | undefined {
  for (const key of ['client_id', 'azp', 'appid']) if (typeof claims[key] === 'string' && claims[key] !== '') return claims[key] as string
  return undefined
}
