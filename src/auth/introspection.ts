// Opaque access tokens (RFC 7662): asked of the introspection endpoint, then held until their
// `exp` so a busy caller costs one round trip per token, not per request. The reply must say
// active, and name this gateway's audience (RFC 8707, AUTH-6) and its issuer when it names one.
import { createHash } from 'node:crypto'
import type { Dispatcher } from 'undici'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import type { IntrospectionConfig } from './auth-types.ts'
import { postForm } from './oauth-form.ts'
import { principalFromClaims } from './jwt-verifier.ts'
import type { Principal } from './principal.ts'
import { invalidToken, verifierUnavailable } from './token-error.ts'

export const MAX_INTROSPECTION_ENTRIES = 10_000
// A reply without `exp` is held this long at most.
export const DEFAULT_INTROSPECTION_TTL_MS = 60_000

export interface IntrospectorOptions {
  config: IntrospectionConfig
  issuer: string
  audience: string
  clockToleranceS: number
  dispatcher: Dispatcher
  now?: () => number
}

interface Entry {
  principal: Principal
  untilMs: number
}

function audiences(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

export class Introspector {
  readonly #options: IntrospectorOptions
  readonly #now: () => number
  readonly #cache = new Map<string, Entry>()
  readonly #inflight = new Map<string, Promise<Principal>>()

  constructor(options: IntrospectorOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  async verify(token: string): Promise<Principal> {
    const key = createHash('sha256').update(token).digest('base64url')
    const cached = this.#cache.get(key)
    if (cached && cached.untilMs > this.#now()) return cached.principal
    if (cached) this.#cache.delete(key)
    let pending = this.#inflight.get(key)
    if (!pending) {
      pending = this.#introspect(token, key).finally(() => this.#inflight.delete(key))
      this.#inflight.set(key, pending)
    }
    return pending
  }

  async #introspect(token: string, key: string): Promise<Principal> {
    const { config } = this.#options
    let reply
    try {
      reply = await postForm(this.#options.dispatcher, { url: config.url, client: config, params: { token, token_type_hint: 'access_token' } })
    } catch (err) {
      throw verifierUnavailable('the introspection endpoint cannot be reached', err)
    }
    if (reply.status !== 200) throw verifierUnavailable(`the introspection endpoint answered HTTP ${reply.status}`)
    const principal = this.#check(reply.body, token)
    this.#remember(key, principal)
    return principal
  }

  #check(body: JsonObject, token: string): Principal {
    const nowS = this.#now() / 1000
    const tolerance = this.#options.clockToleranceS
    if (body.active !== true) throw invalidToken('the token is not active')
    if (!audiences(body.aud).includes(this.#options.audience)) throw invalidToken('the token was not issued for this resource')
    if (body.iss !== undefined && body.iss !== this.#options.issuer) throw invalidToken('the token was issued by another authorization server')
    if (typeof body.exp === 'number' && body.exp + tolerance <= nowS) throw invalidToken('the token has expired')
    if (typeof body.nbf === 'number' && body.nbf - tolerance > nowS) throw invalidToken('the token is not valid yet')
    return principalFromClaims(body, token)
  }

  #remember(key: string, principal: Principal): void {
    const now = this.#now()
    const untilMs = Math.min(principal.expiresAtMs ?? now + DEFAULT_INTROSPECTION_TTL_MS, now + 24 * 3600_000)
    if (this.#cache.size >= MAX_INTROSPECTION_ENTRIES) {
      for (const [k, entry] of this.#cache) if (entry.untilMs <= now) this.#cache.delete(k)
      // Still full: the oldest entry goes (a Map iterates in insertion order).
      if (this.#cache.size >= MAX_INTROSPECTION_ENTRIES) this.#cache.delete(this.#cache.keys().next().value as string)
    }
    this.#cache.set(key, { principal, untilMs })
  }
}
