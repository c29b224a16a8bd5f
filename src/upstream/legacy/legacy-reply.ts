// What a 2025-11-25 backend receives from the gateway: legacy params, and the answers to its own
// requests (LEGACY-C5), bridged to the modern client when a call can take them (MRTR-2, MRTR-3). The replies
// themselves are read by the one HTTP reply reader (http/http-reply.ts).
import { RPC } from '../../errors.ts'
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'
import { getMeta } from '../../protocol/meta.ts'
import type { ServerAnswer, UpstreamCall } from '../backend.ts'

const RESERVED_META_PREFIX = 'io.modelcontextprotocol/'

// The modern per-request keys mean nothing to a legacy server: keep progressToken and the rest.
export function toLegacyParams(params: JsonObject): JsonObject {
  const meta = getMeta(params)
  if (meta === undefined) return params
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META_PREFIX)))
  const { _meta: _dropped, ...rest } = params
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest
}

const BRIDGED_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])

// LEGACY-C5: the local answer: ping → {}; sampling, elicitation, roots and anything else refused.
function answerLocally(method: unknown): ServerAnswer {
  if (method === 'ping') return { result: {} }
  return { error: { code: RPC.methodNotFound, message: `${String(method)} is not supported by the gateway yet` } }
}

// LEGACY-C5: the JSON-RPC response to a backend request that belongs to no call.
export function answerServerRequest(request: JsonObject): JsonObject {
  return { jsonrpc: '2.0', id: request.id, ...answerLocally(request.method) }
}

// LEGACY-C5: the answer to a backend request made during a call: elicitation, sampling and
// roots go to `bridge` when the call has one; the rest is answered locally. Never rejects: a
// failing bridge becomes an internal error for the backend.
export async function answerCallRequest(request: JsonObject, bridge: UpstreamCall['onServerRequest']): Promise<ServerAnswer> {
  const method = request.method
  if (bridge === undefined || typeof method !== 'string' || !BRIDGED_METHODS.has(method)) return answerLocally(method)
  const params = isJsonObject(request.params) ? request.params : undefined
  try {
    return await bridge(params === undefined ? { method } : { method, params })
  } catch (err) {
    return { error: { code: RPC.internalError, message: `the gateway could not relay ${method}: ${err instanceof Error ? err.message : String(err)}` } }
  }
}
