// JWT access tokens (RFC 9068) checked with jose against the authorization server's JWKS (AUTH-6):
// signature by a key from the set (cached; an unknown `kid` refetches at most every 30 s), only
// the configured asymmetric algorithms, `iss`, `aud` = the gateway's resource (RFC 8707), `exp`
// required, `exp`/`nbf` with the clock tolerance. The JWKS comes through a bounded fetch.
import type { Dispatcher } from 'undici'
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from 'jose'
import { createJwksFetch } from './bounded-http.ts'
import { Principal, PRINCIPAL_KIND } from './principal.ts'
import { invalidToken, readClientId, readScopes, TokenError, verifierUnavailable } from './token-error.ts'

export const JWKS_COOLDOWN_MS = 30_000
export const JWKS_MAX_AGE_MS = 600_000
export const MAX_JWKS_BYTES = 256 * 1024

export interface JwtVerifierOptions {
  issuer: string
  audience: string
  jwksUri: string
  algorithms: readonly string[]
  clockToleranceS: number
  dispatcher: Dispatcher
  timeoutMs?: number
}

// jose failures by err.code (never by message): the token's fault, or the key source's.
const INVALID_CODES: ReadonlyMap<string, string> = new Map([
  ['ERR_JWT_EXPIRED', 'the token has expired'],
  ['ERR_JOSE_ALG_NOT_ALLOWED', 'the token is signed with an algorithm that is not accepted'],
  ['ERR_JOSE_NOT_SUPPORTED', 'the token uses an unsupported algorithm or key'],
  ['ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'the token signature does not verify'],
  ['ERR_JWKS_NO_MATCHING_KEY', 'the token is signed with an unknown key'],
  ['ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'the token does not identify its signing key'],
  ['ERR_JWS_INVALID', 'the token is malformed'],
  ['ERR_JWT_INVALID', 'the token is malformed'],
])

function toTokenError(err: unknown): TokenError {
  const code = (err as { code?: unknown } | null)?.code
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const claim = (err as { claim?: unknown }).claim
    return invalidToken(`the token's ${typeof claim === 'string' ? claim : 'unknown'} claim is not valid here`, err)
  }
  const description = typeof code === 'string' ? INVALID_CODES.get(code) : undefined
  if (description !== undefined) return invalidToken(description, err)
  // ERR_JWKS_TIMEOUT, ERR_JWKS_INVALID, a non-200 JWKS, a reply too large: not the token's fault.
  return verifierUnavailable('the signing keys of the authorization server cannot be fetched', err)
}

export class JwtVerifier {
  readonly #options: JwtVerifierOptions
  readonly #jwks: ReturnType<typeof createRemoteJWKSet>

  constructor(options: JwtVerifierOptions) {
    this.#options = options
    const timeoutMs = options.timeoutMs ?? 5_000
    this.#jwks = createRemoteJWKSet(new URL(options.jwksUri), {
      timeoutDuration: timeoutMs,
      cooldownDuration: JWKS_COOLDOWN_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      [customFetch]: createJwksFetch(options.dispatcher, { timeoutMs, maxBytes: MAX_JWKS_BYTES }),
    })
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, this.#jwks, {
        issuer: this.#options.issuer,
        audience: this.#options.audience,
        algorithms: [...this.#options.algorithms],
        clockTolerance: this.#options.clockToleranceS,
        requiredClaims: ['exp'],
      }))
    } catch (err) {
      throw toTokenError(err)
    }
    return principalFromClaims(payload, token)
  }
}

export function principalFromClaims(claims: Record<string, unknown>, token: string): Principal {
  const clientId = readClientId(claims)
  const subject = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : clientId
  if (subject === undefined) throw invalidToken('the token names neither a subject nor a client')
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined
  return new Principal({ kind: PRINCIPAL_KIND.user, subject, clientId, scopes: readScopes(claims), expiresAtMs: exp, token })
}
