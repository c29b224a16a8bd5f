// Legacy session ids (LEGACY-4, LEGACY-16): minted at initialize as a sealed, self-contained token, and
// opened on every later request by any replica sharing the secret. Unknown, forged, expired or
// ended (DELETE) → undefined, which the caller answers with 404. Only the DELETE list is shared state.
import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError } from '../../errors.ts'
import { compactClientCapabilities } from '../../protocol/legacy/capabilities.ts'
import { getSessionHeader } from '../../protocol/legacy/era.ts'
import type { InitializeParams } from '../../protocol/legacy/initialize.ts'
import { decodeSessionClaims, encodeSessionClaims, type SessionClaims } from '../../protocol/legacy/session-token.ts'
import type { Sealer } from '../../routing/seal.ts'
import type { EndedSessions } from '../../shared-state/ended-sessions.ts'

const VERSION_HEADER = 'mcp-protocol-version'
// Longer tokens are not ours (ours are well under 1 KB): refused before any MAC work.
const MAX_TOKEN_CHARS = 4096
// Tokens this replica opened recently, so a session's later requests skip the decryption (a
// client sends the same id on every request). Only a token that opened is kept, the oldest goes
// first, and expiry and the ended list are checked on every use.
const OPENED_CACHE_SIZE = 1024

export interface LegacySessionsOptions {
  sealer: Sealer
  ended: EndedSessions
  ttlMs: number
  now?: () => number
}

export class LegacySessions {
  readonly #options: LegacySessionsOptions
  readonly #now: () => number
  readonly #opened = new Map<string, SessionClaims>()

  constructor(options: LegacySessionsOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  create(init: InitializeParams, principal: string): { token: string; claims: SessionClaims } {
    const issuedAt = this.#now()
    const claims: SessionClaims = {
      id: randomBytes(16).toString('base64url'),
      version: init.version,
      clientFlags: compactClientCapabilities(init.capabilities),
      clientInfo: init.clientInfo,
      principal,
      issuedAt,
      expiresAt: issuedAt + this.#options.ttlMs,
    }
    return { token: this.#options.sealer.seal(encodeSessionClaims(claims), this.#options.ttlMs), claims }
  }

  async open(token: string): Promise<SessionClaims | undefined> {
    if (token.length > MAX_TOKEN_CHARS) return undefined
    const claims = this.#unseal(token)
    if (claims === undefined || (await this.#options.ended.isEnded(claims.id))) return undefined
    return claims
  }

  #unseal(token: string): SessionClaims | undefined {
    const now = this.#now()
    const cached = this.#opened.get(token)
    if (cached !== undefined && cached.expiresAt >= now) return cached
    this.#opened.delete(token)
    const claims = decodeSessionClaims(this.#options.sealer.open(token, now))
    if (claims === undefined) return undefined
    if (this.#opened.size >= OPENED_CACHE_SIZE) this.#opened.delete(this.#opened.keys().next().value as string)
    this.#opened.set(token, Object.freeze(claims))
    return claims
  }

  // LEGACY-4/6 for every request after initialize: the session must exist, belong to the caller
  // (a session of another principal is unknown to this one: MRTR-9), and the version
  // header, when sent, must name the negotiated version.
  async openFrom(headers: IncomingHttpHeaders, principal: string): Promise<SessionClaims | GatewayError> {
    const token = getSessionHeader(headers)
    if (token === undefined) return new GatewayError('MCP_GATEWAY_SESSION_REQUIRED') // LEGACY-4
    const claims = await this.open(token)
    if (claims === undefined || claims.principal !== principal) return new GatewayError('MCP_GATEWAY_SESSION_UNKNOWN') // LEGACY-4
    const version = headers[VERSION_HEADER]
    if (version !== undefined && version !== claims.version) {
      return new GatewayError('MCP_GATEWAY_SESSION_VERSION_MISMATCH', `${String(version)}; the session speaks ${claims.version}`) // LEGACY-6
    }
    return claims
  }

  // LEGACY-5: remembered as ended until the id would have expired anyway.
  async end(claims: SessionClaims): Promise<void> {
    await this.#options.ended.end(claims.id, claims.expiresAt)
  }
}
