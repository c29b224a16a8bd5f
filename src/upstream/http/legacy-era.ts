// Era decision toward an HTTP backend (ERA-1, ERA-4, §27 item 13) and the check of a legacy
// `initialize` result (LEGACY-C1). Pure functions of what the backend answered; the HTTP backend
// only sequences them.
import { RPC } from '../../errors.ts'
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'
import { LEGACY_BACKEND_VERSIONS, MODERN_VERSIONS } from '../../protocol/version.ts'
import type { UpstreamReply } from '../backend.ts'


// What the `server/discover` probe got back: the HTTP status and the JSON-RPC reply, if any.
export interface HttpProbeOutcome {
  status: number
  reply: UpstreamReply | undefined
}

export type HttpEraVerdict =
  | { kind: 'modern'; capabilities: JsonObject }
  | { kind: 'legacy'; note: string }
  | { kind: 'down'; reason: string }

// ERA-1: statuses after which a body without a modern error means "legacy".
const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405])

function isDiscoverResult(result: JsonObject): boolean {
  return Array.isArray(result.supportedVersions) && isJsonObject(result.capabilities)
}

// ERA-1: -32022 with data.supported, -32021 and -32020 are answers only a modern server gives.
export function isModernProbeError(code: number, data: unknown): boolean {
  if (code === RPC.unsupportedVersion) return isJsonObject(data) && Array.isArray(data.supported)
  return code === RPC.missingClientCapability || code === RPC.headerMismatch
}

function decideFromError(outcome: HttpProbeOutcome, code: number, data: unknown, message: string): HttpEraVerdict {
  if (isModernProbeError(code, data)) {
    // Modern, but our one version or request was refused: no fallback (ERA-1).
    return { kind: 'down', reason: `server/discover refused by a modern backend: ${message} (${code})` }
  }
  // ERA-4: every modern server implements server/discover, so -32601/-32602 mean legacy.
  if (code === RPC.methodNotFound || code === RPC.invalidParams) {
    return { kind: 'legacy', note: `server/discover answered error ${code}` }
  }
  if (outcome.status < 300 || FALLBACK_STATUSES.has(outcome.status)) {
    return { kind: 'legacy', note: `server/discover answered HTTP ${outcome.status} with error ${code}` }
  }
  return { kind: 'down', reason: `server/discover answered HTTP ${outcome.status} with error ${code}` }
}

function decideModern(result: JsonObject): HttpEraVerdict {
  const supported = result.supportedVersions as unknown[]
  if (!supported.some((version) => typeof version === 'string' && MODERN_VERSIONS.includes(version))) {
    return { kind: 'down', reason: `no protocol version in common (backend supports ${JSON.stringify(supported)})` }
  }
  return { kind: 'modern', capabilities: result.capabilities as JsonObject }
}

export function decideHttpEra(outcome: HttpProbeOutcome): HttpEraVerdict {
  const { status, reply } = outcome
  if (reply?.ok === true) {
    if (isDiscoverResult(reply.result)) return decideModern(reply.result)
    return { kind: 'legacy', note: 'server/discover answered with something other than a DiscoverResult' }
  }
  if (reply?.ok === false) return decideFromError(outcome, reply.error.code, reply.error.data, reply.error.message)
  if (FALLBACK_STATUSES.has(status)) return { kind: 'legacy', note: `server/discover answered HTTP ${status} without a JSON-RPC error` }
  // 401/403 (auth), 5xx (temporarily broken) or a 2xx without a reply: no era verdict yet.
  return { kind: 'down', reason: `server/discover answered HTTP ${status} without a usable reply` }
}

export type InitializeVerdict =
  | { ok: true; protocolVersion: string; capabilities: JsonObject }
  | { ok: false; reason: string }

// LEGACY-C1: a version the gateway does not speak ends the attempt.
export function checkInitializeReply(reply: UpstreamReply): InitializeVerdict {
  if (!reply.ok) return { ok: false, reason: `initialize failed: ${reply.error.message} (${reply.error.code})` }
  const { protocolVersion, capabilities } = reply.result
  if (typeof protocolVersion !== 'string' || !LEGACY_BACKEND_VERSIONS.includes(protocolVersion)) {
    return { ok: false, reason: `initialize negotiated unsupported protocol version ${JSON.stringify(protocolVersion)}` }
  }
  return { ok: true, protocolVersion, capabilities: isJsonObject(capabilities) ? capabilities : {} }
}
