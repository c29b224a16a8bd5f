// Subscription rules shared by every layer (SUB-2, SUB-3, SUB-5): which list_changed notification
// a filter key stands for, which capability can promise it, and which resource updates a filter
// covers. One copy: the listen hub, the client listen stream and both backend transports use it. Pure.
import { isJsonObject, type JsonObject, type JsonRpcNotification } from './jsonrpc.ts'

export const RESOURCE_UPDATED = 'notifications/resources/updated'
export const SUBSCRIPTIONS_ACKNOWLEDGED = 'notifications/subscriptions/acknowledged'

export type ListKindId = 'tools' | 'prompts' | 'resources' | 'templates'

export interface ListChange {
  readonly method: string
  // The key of a subscriptions/listen filter that asks for it (SUB-2).
  readonly filterKey: 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'
  // The server capability whose `listChanged: true` promises it.
  readonly capability: 'tools' | 'prompts' | 'resources'
  // The cached lists it makes stale (CACHE-8).
  readonly kinds: readonly ListKindId[]
}

export const LIST_CHANGES: readonly ListChange[] = Object.freeze([
  { method: 'notifications/tools/list_changed', filterKey: 'toolsListChanged', capability: 'tools', kinds: ['tools'] },
  { method: 'notifications/prompts/list_changed', filterKey: 'promptsListChanged', capability: 'prompts', kinds: ['prompts'] },
  { method: 'notifications/resources/list_changed', filterKey: 'resourcesListChanged', capability: 'resources', kinds: ['resources', 'templates'] },
])

const BY_METHOD: ReadonlyMap<string, ListChange> = new Map(LIST_CHANGES.map((change) => [change.method, change]))

// The method comes from a backend: a Map lookup, so "constructor" or "__proto__" find nothing.
export function listChangeOf(method: string): ListChange | undefined {
  return BY_METHOD.get(method)
}

// SUB-5: an update may name a sub-resource of the subscribed URI.
export function coversUri(subscribed: string, uri: string): boolean {
  return uri === subscribed || uri.startsWith(subscribed.endsWith('/') ? subscribed : `${subscribed}/`)
}

export function subscribedUris(filter: JsonObject): string[] {
  const uris = filter.resourceSubscriptions
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : []
}

// SUB-2: only the kinds the filter asked for; resources/updated for a subscribed URI or a
// sub-resource of one (SUB-5).
export function isWantedByFilter(notification: JsonRpcNotification, filter: JsonObject): boolean {
  const change = listChangeOf(notification.method)
  if (change !== undefined) return filter[change.filterKey] === true
  if (notification.method !== RESOURCE_UPDATED) return false
  const uri = notification.params?.uri
  return typeof uri === 'string' && subscribedUris(filter).some((subscribed) => coversUri(subscribed, uri))
}

// Subscription notifications a backend sends unsolicited (list changes and resource updates).
export function isSubscriptionNotification(method: string): boolean {
  return BY_METHOD.has(method) || method === RESOURCE_UPDATED
}

function declares(capabilities: JsonObject, capability: string, key: string): boolean {
  const declared = capabilities[capability]
  return isJsonObject(declared) && declared[key] === true
}

// The list-change filter a backend can honour, from its declared capabilities; undefined when none.
export function listFilterFor(capabilities: JsonObject): JsonObject | undefined {
  const filter: JsonObject = {}
  for (const change of LIST_CHANGES) if (declares(capabilities, change.capability, 'listChanged')) filter[change.filterKey] = true
  return Object.keys(filter).length > 0 ? filter : undefined
}

// The filter of the listen hub's one listen per backend: its list changes; a 2025-11-25 backend that
// declares `logging` is listened to even with none ({}), since that is where its logs outside any
// request arrive (its GET stream, LEGACY-9). Undefined when there is nothing to hear.
export function hubFilterFor(capabilities: JsonObject, legacy: boolean): JsonObject | undefined {
  return listFilterFor(capabilities) ?? (legacy && isJsonObject(capabilities.logging) ? {} : undefined)
}

// SUB-3: the subset of a requested filter that these capabilities can honour; `uris` are the
// requested URIs some backend can subscribe to, and an empty list is left out.
export function honourFilter(requested: JsonObject, capabilities: JsonObject, uris: readonly string[] = []): JsonObject {
  const honoured: JsonObject = {}
  for (const change of LIST_CHANGES) {
    if (requested[change.filterKey] === true && declares(capabilities, change.capability, 'listChanged')) honoured[change.filterKey] = true
  }
  if (uris.length > 0 && declares(capabilities, 'resources', 'subscribe')) honoured.resourceSubscriptions = [...uris]
  return honoured
}

export function canSubscribeResources(capabilities: JsonObject): boolean {
  return declares(capabilities, 'resources', 'subscribe')
}
