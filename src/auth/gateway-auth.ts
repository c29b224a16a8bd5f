// Everything the front door and the router need from authentication, built once from the settings:
// who is calling (or anonymous when auth is off), whether they are over their rate, what they may
// see and use, and the metadata document. The guards in src/front/guards.ts are thin adapters.
import type { IncomingHttpHeaders } from 'node:http'
import type { Dispatcher } from 'undici'
import { GatewayError } from '../errors.ts'
import type { AuthMetrics } from '../observability/auth-metrics.ts'
import type { AuthSettings } from './auth-types.ts'
import { Authenticator, type AuthOutcome, type AuthRequest } from './authenticator.ts'
import { Policy, type PolicyKind } from './policy.ts'
import { metadataDocument } from './prm.ts'
import { ANONYMOUS, type Principal } from './principal.ts'
import { clientAddress, MemoryTokenBuckets, type RateLimitStore } from './rate-limit.ts'
import type { RouteAccess } from '../routing/access.ts'

export interface GatewayAuthOptions {
  settings: AuthSettings
  dispatcher: Dispatcher
  metrics?: AuthMetrics
  // The rate-limit store; in memory unless given (a Redis one for N replicas).
  store?: RateLimitStore
  now?: () => number
}

export interface ClientInfo {
  remoteAddress: string | undefined
  forwardedFor: string | string[] | undefined
}

// What the front door knows of a request before anything else runs.
export interface AdmitRequest {
  headers: IncomingHttpHeaders
  url: string | undefined
  remoteAddress: string | undefined
}

const NO_AUTH_OUTCOME: AuthOutcome = { ok: true, principal: ANONYMOUS }

export class GatewayAuth implements RouteAccess {
  readonly policy: Policy
  // The PRM document and its paths; undefined when auth is off.
  readonly metadata: { paths: string[]; body: string } | undefined
  readonly #settings: AuthSettings
  readonly #authenticator: Authenticator | undefined
  readonly #store: RateLimitStore | undefined
  readonly #metrics: AuthMetrics | undefined

  constructor(options: GatewayAuthOptions) {
    const { settings } = options
    this.#settings = settings
    this.#metrics = options.metrics
    const auth = settings.auth
    this.policy = new Policy(settings.policy, { requiredScopes: auth?.requiredScopes ?? [], hierarchy: auth?.scopeHierarchy ?? {} })
    if (auth) {
      this.#authenticator = new Authenticator({ config: auth, policy: this.policy, dispatcher: options.dispatcher, now: options.now })
      this.metadata = metadataDocument(auth)
    }
    const limit = settings.rateLimit
    this.#store = options.store ?? (limit ? new MemoryTokenBuckets({ ...limit, now: options.now }) : undefined)
  }

  get enabled(): boolean {
    return this.#authenticator !== undefined
  }

  get limited(): boolean {
    return this.#store !== undefined
  }

  // AUTH-16: every request on its own. Auth off: everyone is anonymous (open, as before).
  async authenticate(request: AuthRequest): Promise<AuthOutcome> {
    if (!this.#authenticator) return NO_AUTH_OUTCOME
    const outcome = await this.#authenticator.authenticate(request)
    if (!outcome.ok) this.#metrics?.refused(outcome.error.code)
    return outcome
  }

  // The front door's one question (AUTH-6, then the rate limit): who is this, may they go on?
  async admit(request: AdmitRequest): Promise<AuthOutcome> {
    const outcome = this.#authenticator ? await this.authenticate({ authorization: request.headers.authorization, url: request.url }) : NO_AUTH_OUTCOME
    if (!outcome.ok || !this.#store) return outcome
    const limited = await this.limit(outcome.principal, { remoteAddress: request.remoteAddress, forwardedFor: request.headers['x-forwarded-for'] })
    return limited ? { ok: false, error: limited } : outcome
  }

  // undefined when the caller may go on; a 429 with Retry-After when over the limit.
  async limit(principal: Principal, client: ClientInfo): Promise<GatewayError | undefined> {
    if (!this.#store) return undefined
    const key = principal.isAnonymous ? `addr:${clientAddress(client.remoteAddress, client.forwardedFor, this.#settings.trustProxy)}` : principal.id
    const decision = await this.#store.take(key)
    if (decision.allowed) return undefined
    this.#metrics?.refused('MCP_GATEWAY_RATE_LIMITED')
    return new GatewayError('MCP_GATEWAY_RATE_LIMITED', `retry after ${decision.retryAfterS} s`, { headers: { 'retry-after': String(decision.retryAfterS) } })
  }

  // A 403 for using something the policy keeps from this caller, or undefined when allowed.
  forbid(principal: Principal, kind: PolicyKind, name: string): GatewayError | undefined {
    if (!this.#authenticator) return undefined
    const needed = this.policy.missingFor(principal, kind, name)
    if (needed === undefined) return undefined
    this.#metrics?.refused('MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE')
    return this.#authenticator.challenger.insufficientScope(needed, `${name} needs scope ${needed.join(' ')}`)
  }

  // CAP-4: which names of a list this caller may see; undefined when no rule concerns the kind.
  visibility(principal: Principal, kind: PolicyKind): ((name: string) => boolean) | undefined {
    if (!this.#authenticator || !this.policy.covers(kind)) return undefined
    return (name) => this.policy.allows(principal, kind, name)
  }
}
