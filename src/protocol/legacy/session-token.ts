// What a legacy session id carries (LEGACY-4, LEGACY-16): everything a request of the session needs, so
// any replica holding the sealing secret serves it without a store. This module only shapes the
// payload (short field names keep the token compact); sealing is the Sealer's job. Pure.
import { isJsonObject, type JsonObject } from '../jsonrpc.ts'
import { isClientFlag, type ClientFlag } from './capabilities.ts'
import { isLegacyVersion } from './version.ts'

const SESSION_KIND = 'ls'
const SESSION_FORMAT = 1
// clientInfo is echoed into every backend call's _meta; long values are cut to keep the id small.
export const MAX_CLIENT_INFO_CHARS = 64

export interface ClientInfo {
  name: string
  version: string
}

export interface SessionClaims {
  // Random: keys the session's changing state (log level, subscriptions, ended) and its ids.
  id: string
  // Negotiated at initialize (LEGACY-2); every later request must name it (LEGACY-6).
  version: string
  clientFlags: ClientFlag[]
  clientInfo: ClientInfo
  // Who opened the session (MRTR-9 binding); ANONYMOUS until authentication exists.
  principal: string
  issuedAt: number
  expiresAt: number
}

// LEGACY-2: clientInfo needs a name and a version (strings); both are cut to the cap.
export function readClientInfo(value: unknown): ClientInfo | undefined {
  if (!isJsonObject(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return undefined
  return { name: value.name.slice(0, MAX_CLIENT_INFO_CHARS), version: value.version.slice(0, MAX_CLIENT_INFO_CHARS) }
}

export function encodeSessionClaims(claims: SessionClaims): JsonObject {
  const { id, version, clientFlags, clientInfo, principal, issuedAt, expiresAt } = claims
  return { k: SESSION_KIND, f: SESSION_FORMAT, i: id, pv: version, c: clientFlags, n: clientInfo.name, cv: clientInfo.version, p: principal, iat: issuedAt, exp: expiresAt }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

// undefined for anything that is not a session payload of this format (a sealed cursor or
// requestState is not a session, even though the same secret sealed it).
export function decodeSessionClaims(payload: JsonObject | undefined): SessionClaims | undefined {
  if (payload === undefined || payload.k !== SESSION_KIND || payload.f !== SESSION_FORMAT) return undefined
  const { i: id, pv: version, c: flags, n: name, cv: clientVersion, p: principal, iat: issuedAt, exp: expiresAt } = payload
  if (typeof id !== 'string' || !isLegacyVersion(version) || !isStringList(flags) || !flags.every(isClientFlag)) return undefined
  if (typeof name !== 'string' || typeof clientVersion !== 'string' || typeof principal !== 'string') return undefined
  if (typeof issuedAt !== 'number' || typeof expiresAt !== 'number') return undefined
  return { id, version, clientFlags: flags, clientInfo: { name, version: clientVersion }, principal, issuedAt, expiresAt }
}
