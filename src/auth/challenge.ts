// The refusals of a protected resource (RFC 6750 §3, RFC 9728 §5.1): 401 with a Bearer challenge
// naming the metadata document and the scopes needed (AUTH-4, AUTH-5), `invalid_token` when a
// token was sent (AUTH-6), 403 `insufficient_scope` with every scope the operation needs (AUTH-9).
import { GatewayError } from '../errors.ts'

export const BEARER_ERROR = {
  invalidRequest: 'invalid_request',
  invalidToken: 'invalid_token',
  insufficientScope: 'insufficient_scope',
} as const
export type BearerError = (typeof BEARER_ERROR)[keyof typeof BEARER_ERROR]

export interface ChallengeParams {
  resourceMetadata: string
  scopes: readonly string[]
  error?: BearerError
  description?: string
}

// RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E (no quote, no backslash).
function safeDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ').slice(0, 200)
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`
}

export function formatChallenge(params: ChallengeParams): string {
  const parts = [`resource_metadata=${quote(params.resourceMetadata)}`]
  if (params.scopes.length > 0) parts.push(`scope=${quote(params.scopes.join(' '))}`)
  if (params.error !== undefined) parts.push(`error=${quote(params.error)}`)
  if (params.description !== undefined) parts.push(`error_description=${quote(safeDescription(params.description))}`)
  return `Bearer ${parts.join(', ')}`
}

type AuthRefusal = 'MCP_GATEWAY_AUTH_REQUIRED' | 'MCP_GATEWAY_AUTH_INVALID_TOKEN' | 'MCP_GATEWAY_AUTH_TOKEN_IN_QUERY' | 'MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE'

export interface ChallengerOptions {
  resourceMetadata: string
  requiredScopes: readonly string[]
}

// Builds each refusal as a catalogue error carrying its challenge header.
export class Challenger {
  readonly #options: ChallengerOptions

  constructor(options: ChallengerOptions) {
    this.#options = options
  }

  // No credentials at all: no `error` (RFC 6750 §3.1).
  required(): GatewayError {
    return this.#refuse('MCP_GATEWAY_AUTH_REQUIRED', { scopes: this.#options.requiredScopes })
  }

  invalidToken(description: string): GatewayError {
    return this.#refuse('MCP_GATEWAY_AUTH_INVALID_TOKEN', { scopes: this.#options.requiredScopes, error: BEARER_ERROR.invalidToken, description })
  }

  // AUTH-12: a token in the URL is refused, even alongside a valid header.
  tokenInQuery(): GatewayError {
    const description = 'access tokens are accepted in the Authorization header only'
    return this.#refuse('MCP_GATEWAY_AUTH_TOKEN_IN_QUERY', { scopes: this.#options.requiredScopes, error: BEARER_ERROR.invalidRequest, description })
  }

  // `scopes`: everything the operation needs, in one challenge (AUTH-9).
  insufficientScope(scopes: readonly string[], description: string): GatewayError {
    return this.#refuse('MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE', { scopes, error: BEARER_ERROR.insufficientScope, description })
  }

  // The keys or the introspection endpoint cannot be reached: the token may well be good (503).
  unavailable(description: string): GatewayError {
    return new GatewayError('MCP_GATEWAY_AUTH_UNAVAILABLE', description, { headers: { 'retry-after': '5' } })
  }

  #refuse(code: AuthRefusal, challenge: Omit<ChallengeParams, 'resourceMetadata'>): GatewayError {
    const header = formatChallenge({ resourceMetadata: this.#options.resourceMetadata, ...challenge })
    return new GatewayError(code, challenge.description, { headers: { 'www-authenticate': header } })
  }
}
