// A client's subscriptions/listen stream (SUB-*): acknowledgment first, then only what it asked
// for, tagged with its own id (same JSON type), keep-alive comments (SSE-5), and a graceful
// closing result on shutdown (SUB-9/10, §27 item 1).
import type { ServerResponse } from 'node:http'
import type { JsonObject, JsonRpcId, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { META } from '../protocol/meta.ts'
import { SSE_KEEP_ALIVE } from '../protocol/sse.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { OUTCOME, type Outcome } from '../observability/metrics.ts'
import { LIST_CHANGED, type ListenHub } from '../routing/listen-hub.ts'
import type { ServerInfo } from '../protocol/result.ts'
import type { ReplyStream } from './reply-stream.ts'

export interface ListenDeps {
  hub: ListenHub
  keepAliveMs: number
  serverInfo: ServerInfo
  // Capabilities the gateway declares (discover): what it can honour.
  capabilities: () => JsonObject
  // Called on shutdown for every open stream.
  closers: Set<() => void>
}

// SUB-3: the subset of the filter the gateway will honour.
export function honourFilter(requested: JsonObject, capabilities: JsonObject): JsonObject {
  const honoured: JsonObject = {}
  const can = (capability: string, key: string): boolean => isJsonObject(capabilities[capability]) && (capabilities[capability] as JsonObject)[key] === true
  if (requested.toolsListChanged === true && can('tools', 'listChanged')) honoured.toolsListChanged = true
  if (requested.promptsListChanged === true && can('prompts', 'listChanged')) honoured.promptsListChanged = true
  if (requested.resourcesListChanged === true && can('resources', 'listChanged')) honoured.resourcesListChanged = true
  const uris = requested.resourceSubscriptions
  if (Array.isArray(uris) && can('resources', 'subscribe')) honoured.resourceSubscriptions = uris.filter((u) => typeof u === 'string')
  return honoured
}

function wants(filter: JsonObject, notification: JsonRpcNotification): boolean {
  const change = LIST_CHANGED[notification.method as keyof typeof LIST_CHANGED]
  if (change) return filter[change.filterKey] === true
  const uri = notification.params?.uri
  const uris = Array.isArray(filter.resourceSubscriptions) ? (filter.resourceSubscriptions as string[]) : []
  return typeof uri === 'string' && uris.some((u) => uri === u || uri.startsWith(u.endsWith('/') ? u : `${u}/`))
}

function tagged(id: JsonRpcId, notification: JsonRpcNotification): JsonRpcNotification {
  const params = notification.params ?? {}
  const meta = isJsonObject(params._meta) ? params._meta : {}
  return { jsonrpc: '2.0', method: notification.method, params: { ...params, _meta: { ...meta, [META.subscriptionId]: id } } }
}

export function serveListen(deps: ListenDeps, valid: ValidRequest, stream: ReplyStream, res: ServerResponse): Promise<Outcome> {
  const id = valid.request.id
  const requested = isJsonObject(valid.params.notifications) ? valid.params.notifications : {}
  const filter = honourFilter(requested, deps.capabilities())
  stream.notify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [META.subscriptionId]: id }, notifications: filter } })
  const unsubscribe = deps.hub.subscribe({ wants: (n) => wants(filter, n), deliver: (n) => stream.notify(tagged(id, n)) })
  const keepAlive = setInterval(() => stream.writeRaw(SSE_KEEP_ALIVE), deps.keepAliveMs)
  keepAlive.unref()
  return new Promise((resolve) => {
    const shutdown = (): void => {
      // Both texts of §27 item 1: cancelled for the listen id, then the closing result.
      stream.notify(tagged(id, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'server shutting down' } }))
      stream.finish({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [META.subscriptionId]: id, [META.serverInfo]: deps.serverInfo } } })
    }
    deps.closers.add(shutdown)
    res.once('close', () => {
      deps.closers.delete(shutdown)
      clearInterval(keepAlive)
      unsubscribe()
      resolve(OUTCOME.ok)
    })
  })
}
