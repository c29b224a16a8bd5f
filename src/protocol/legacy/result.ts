// Results, errors and notifications in 2025-11-25 form (LEGACY-16). Pure.
import { RPC } from '../../errors.ts'
import { isJsonObject, type JsonObject, type JsonRpcErrorObject, type JsonRpcNotification } from '../jsonrpc.ts'
import { META } from '../meta.ts'

// Results are open objects in 2025-11-25, so ttlMs, cacheScope and _meta are harmless; resultType
// is a 2026-07-28 discriminator and is dropped (a legacy client never sees input_required anyway).
export function toLegacyResult(result: JsonObject): JsonObject {
  const { resultType: _resultType, ...rest } = result
  return rest
}

const URI_METHODS: ReadonlySet<string> = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe'])

// 2025-11-25 resources: a missing resource is -32002 with data.uri (the gateway's and modern
// backends' -32602 + data.uri, ERR-10, mapped back).
export function toLegacyError(method: string, error: JsonRpcErrorObject): JsonRpcErrorObject {
  const data = error.data
  if (URI_METHODS.has(method) && error.code === RPC.invalidParams && isJsonObject(data) && typeof data.uri === 'string') {
    return { ...error, code: RPC.legacyResourceNotFound }
  }
  return error
}

// The GET stream carries list changes and resource updates without a subscription id (LEGACY-16).
export function toLegacyNotification(notification: JsonRpcNotification): JsonRpcNotification {
  const params = notification.params
  const meta = params?._meta
  if (!isJsonObject(meta) || !(META.subscriptionId in meta)) return notification
  const { [META.subscriptionId]: _id, ...rest } = meta
  const { _meta: _old, ...others } = params!
  return { ...notification, params: Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others }
}
