// A 2025-11-25 request as the routing core sees every request (LEGACY-16): the same validated shape as a
// modern one, with the per-request `_meta` built from the session. Pure.
import type { JsonObject, JsonRpcRequest } from '../jsonrpc.ts'
import { META, getMeta, type LogLevel } from '../meta.ts'
import { getMethodSpec } from '../methods.ts'
import type { ValidRequest } from '../validate.ts'
import { toModernClientCapabilities, type ClientFlag } from './capabilities.ts'
import type { ClientInfo } from './session-token.ts'

export interface SessionView {
  version: string
  clientFlags: readonly ClientFlag[]
  clientInfo: ClientInfo
  // From logging/setLevel; undefined until the client set one.
  logLevel?: LogLevel
}

// The methods a legacy client may send that go through the router (LEGACY-14 shared features).
export const ROUTED_METHODS: ReadonlySet<string> = new Set([
  'tools/list', 'tools/call', 'prompts/list', 'prompts/get',
  'resources/list', 'resources/templates/list', 'resources/read', 'completion/complete',
])

const NO_HEADERS: ReadonlyMap<string, string> = new Map()

// LEGACY-16: protocolVersion, clientCapabilities (2026 shape), clientInfo and logLevel come from the
// session; the client's own keys (progressToken, unknown ones: META-9) are kept.
export function buildSessionMeta(session: SessionView, params: JsonObject | undefined): JsonObject {
  const meta: JsonObject = { ...getMeta(params) }
  delete meta[META.logLevel]
  meta[META.protocolVersion] = session.version
  meta[META.clientCapabilities] = toModernClientCapabilities(session.clientFlags)
  meta[META.clientInfo] = { ...session.clientInfo }
  if (session.logLevel !== undefined) meta[META.logLevel] = session.logLevel
  return meta
}

// undefined for a method the router does not serve.
export function toValidRequest(session: SessionView, request: JsonRpcRequest): ValidRequest | undefined {
  const spec = ROUTED_METHODS.has(request.method) ? getMethodSpec(request.method) : undefined
  if (spec === undefined) return undefined
  const meta = buildSessionMeta(session, request.params)
  const params: JsonObject = { ...request.params, _meta: meta }
  return {
    request: { ...request, params }, params, meta, version: session.version, spec,
    logLevel: session.logLevel, paramHeaders: NO_HEADERS, legacy: true,
  }
}

// MRTR-5: the retry of a round: the original params plus inputResponses, and requestState exactly
// as issued (none when none was issued).
export function withInputResponses(valid: ValidRequest, inputResponses: JsonObject, requestState: unknown): ValidRequest {
  const { inputResponses: _previous, requestState: _state, ...original } = valid.params
  const params: JsonObject = { ...original, inputResponses }
  if (typeof requestState === 'string') params.requestState = requestState
  return { ...valid, request: { ...valid.request, params }, params }
}
