// A token request to an authorization server's token endpoint, for the backend credential
// providers: the reply checked (Bearer, a lifetime), failures as CredentialError.
import type { Dispatcher } from 'undici'
import { AuthHttpError } from './bounded-http.ts'
import { postForm, type OAuthClientCredentials } from './oauth-form.ts'
import type { IssuedToken } from './token-cache.ts'

export const CREDENTIAL_FAILURE = {
  // Token exchange needs the caller's token (an API key or an anonymous caller has none).
  noSubjectToken: 'no_subject_token',
  refused: 'refused',
  unreachable: 'unreachable',
  badReply: 'bad_reply',
} as const
export type CredentialFailure = (typeof CREDENTIAL_FAILURE)[keyof typeof CREDENTIAL_FAILURE]

// The message never holds a secret: at most the authorization server's `error` code.
export class CredentialError extends Error {
  readonly failure: CredentialFailure
  constructor(failure: CredentialFailure, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CredentialError'
    this.failure = failure
  }
}

export interface TokenRequest {
  tokenUrl: string
  client: OAuthClientCredentials
  params: Record<string, string | undefined>
  now: () => number
}

// RFC 6749 §5.1 (and RFC 8693 §2.2): a Bearer access token and its lifetime.
export async function requestToken(dispatcher: Dispatcher, request: TokenRequest): Promise<IssuedToken> {
  const origin = new URL(request.tokenUrl).origin
  let reply
  try {
    reply = await postForm(dispatcher, { url: request.tokenUrl, client: request.client, params: request.params })
  } catch (err) {
    const reached = err instanceof AuthHttpError && (err.code === 'too_large' || err.code === 'bad_reply')
    const failure = reached ? CREDENTIAL_FAILURE.badReply : CREDENTIAL_FAILURE.unreachable
    throw new CredentialError(failure, `token endpoint ${origin}: ${err instanceof Error ? err.message : 'failed'}`, { cause: err })
  }
  const body = reply.body
  if (reply.status !== 200) {
    const code = typeof body.error === 'string' ? body.error.replace(/[^\x20-\x7E]/g, '').slice(0, 64) : `HTTP ${reply.status}`
    throw new CredentialError(CREDENTIAL_FAILURE.refused, `token endpoint ${origin} refused: ${code}`)
  }
  if (typeof body.access_token !== 'string' || body.access_token === '') throw new CredentialError(CREDENTIAL_FAILURE.badReply, `token endpoint ${origin}: no access_token`)
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
    throw new CredentialError(CREDENTIAL_FAILURE.badReply, `token endpoint ${origin}: token_type is not Bearer`)
  }
  // Without expires_in the token is used for a minute, then fetched again.
  const expiresInS = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60
  return { accessToken: body.access_token, expiresAtMs: request.now() + expiresInS * 1000 }
}

// RFC 8707 `resource` must be an absolute URI; Auth0 and Keycloak read `audience`. Both are sent.
export function audienceParams(audience: string | undefined): Record<string, string | undefined> {
  if (audience === undefined) return {}
  return /^[a-z][a-z0-9+.-]*:/i.test(audience) && !audience.includes('#') ? { audience, resource: audience } : { audience }
}

