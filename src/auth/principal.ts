// Who is calling: from a validated token (subject + client id), an API key (its name), or nobody
// (auth off). The stable identity that sealed state and private cache entries are bound to (MRTR-9, CACHE-12).
// The bearer token itself is kept in a private field: it never serializes, so never reaches a log.
import { createHash } from 'node:crypto'

export const PRINCIPAL_KIND = {
  user: 'user',
  apiKey: 'apiKey',
  anonymous: 'anonymous',
} as const
export type PrincipalKind = (typeof PRINCIPAL_KIND)[keyof typeof PRINCIPAL_KIND]

// What sealed state is bound to when authentication is off (routing/mrtr.ts ANONYMOUS).
export const ANONYMOUS_ID = 'anonymous'

export interface PrincipalInit {
  kind: PrincipalKind
  subject?: string
  clientId?: string
  scopes?: Iterable<string>
  // Epoch ms after which the credential is no longer valid (token `exp`).
  expiresAtMs?: number
  // The caller's validated bearer token, kept for RFC 8693 exchange only (AUTH-8).
  token?: string
}

function identity(init: PrincipalInit): string {
  if (init.kind === PRINCIPAL_KIND.anonymous) return ANONYMOUS_ID
  if (init.kind === PRINCIPAL_KIND.apiKey) return `key:${init.subject ?? ''}`
  // encodeURIComponent never yields ':', so "a:b" + "c" and "a" + "b:c" cannot collide.
  return `user:${encodeURIComponent(init.subject ?? '')}:${encodeURIComponent(init.clientId ?? '')}`
}

export class Principal {
  readonly kind: PrincipalKind
  readonly subject: string | undefined
  readonly clientId: string | undefined
  readonly scopes: ReadonlySet<string>
  readonly expiresAtMs: number | undefined
  // `user:<sub>:<client_id>`, `key:<name>` or `anonymous`.
  readonly id: string
  readonly #token: string | undefined
  #binding: string | undefined

  constructor(init: PrincipalInit) {
    this.kind = init.kind
    this.subject = init.subject
    this.clientId = init.clientId
    this.scopes = new Set(init.scopes ?? [])
    this.expiresAtMs = init.expiresAtMs
    this.id = identity(init)
    this.#token = init.token
  }

  get isAnonymous(): boolean {
    return this.kind === PRINCIPAL_KIND.anonymous
  }

  // The caller's own token, for token exchange only; never forwarded (AUTH-8), never logged.
  get bearerToken(): string | undefined {
    return this.#token
  }

  // What sealed cursors, requestState, bridge handles and session ids carry: a digest of `id`, so a
  // token's subject is not readable from them and their size does not grow with it.
  get binding(): string {
    if (this.isAnonymous) return ANONYMOUS_ID
    this.#binding ??= createHash('sha256').update(this.id).digest('base64url').slice(0, 22)
    return this.#binding
  }

  // CACHE-12: private entries are keyed by the whole authorization context, scopes included.
  get cacheKey(): string {
    return this.isAnonymous ? ANONYMOUS_ID : `${this.id} ${[...this.scopes].sort().join(' ')}`
  }

  toJSON(): object {
    return { kind: this.kind, subject: this.subject, clientId: this.clientId, scopes: [...this.scopes] }
  }
}

// Immutable: every field is readonly and an anonymous principal computes nothing lazily.
export const ANONYMOUS: Principal = new Principal({ kind: PRINCIPAL_KIND.anonymous })
