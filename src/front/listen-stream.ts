// A client's subscriptions/listen stream (SUB-*): acknowledgment first, then only what it asked
// for, tagged with its own id (same JSON type), keep-alive comments (SSE-5), and a graceful
// closing result on shutdown (SUB-9/10). Resource subscriptions are routed to the
// backends that own the URIs; URIs nobody can subscribe to are left out of the ack (SUB-3).
import type { ServerResponse } from 'node:http'
import type { JsonObject, JsonRpcId, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { META } from '../protocol/meta.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { OUTCOME, type Outcome } from '../observability/metrics.ts'
import type { ListenHub, ResourceRoute } from '../routing/listen-hub.ts'
import { canSubscribeResources, honourFilter, listChangeOf, subscribedUris } from '../protocol/subscriptions.ts'
import type { ServerInfo } from '../protocol/result.ts'
import type { ReplyStream } from './reply-stream.ts'
import type { KeepAliveTicker } from './keep-alive.ts'

export interface ListenDeps {
  hub: ListenHub
  keepAlive: KeepAliveTicker
  serverInfo: ServerInfo
  // Capabilities the gateway declares (discover): what it can honour.
  capabilities: () => JsonObject
  // Called on shutdown for every open stream.
  closers: Set<() => void>
}

function tagged(id: JsonRpcId, notification: JsonRpcNotification): JsonRpcNotification {
  const params = notification.params ?? {}
  const meta = isJsonObject(params._meta) ? params._meta : {}
  return { jsonrpc: '2.0', method: notification.method, params: { ...params, _meta: { ...meta, [META.subscriptionId]: id } } }
}

async function routeRequested(deps: ListenDeps, requested: JsonObject, capabilities: JsonObject): Promise<ResourceRoute[]> {
  const uris = subscribedUris(requested)
  if (uris.length === 0 || !canSubscribeResources(capabilities)) return []
  return deps.hub.routeResources(uris)
}

export async function serveListen(deps: ListenDeps, valid: ValidRequest, stream: ReplyStream, res: ServerResponse): Promise<Outcome> {
  const requested = isJsonObject(valid.params.notifications) ? valid.params.notifications : {}
  const capabilities = deps.capabilities()
  // A shutdown that starts while URIs are being routed still ends this stream gracefully.
  let closing = false
  const onShutdown = (): void => {
    closing = true
  }
  deps.closers.add(onShutdown)
  const routes = await routeRequested(deps, requested, capabilities).finally(() => deps.closers.delete(onShutdown))
  // The client may have left while URIs were being routed: nothing to subscribe for.
  if (stream.gone) return OUTCOME.cancelled
  const sub = { id: valid.request.id, filter: honourFilter(requested, capabilities, routes.map((route) => route.uri)), routes, closing }
  return streamListen(deps, sub, stream, res)
}

interface Subscription {
  id: JsonRpcId
  filter: JsonObject
  routes: readonly ResourceRoute[]
  // The gateway began shutting down before the stream opened.
  closing: boolean
}

function streamListen(deps: ListenDeps, sub: Subscription, stream: ReplyStream, res: ServerResponse): Promise<Outcome> {
  const { id, filter } = sub
  stream.notify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { [META.subscriptionId]: id }, notifications: filter } })
  // SUB-2 for list changes; resource updates reach a client through its routes (ListenHub).
  const wants = (n: JsonRpcNotification): boolean => {
    const change = listChangeOf(n.method)
    return change !== undefined && filter[change.filterKey] === true
  }
  const client = { wants, deliver: (n: JsonRpcNotification) => stream.notify(tagged(id, n)) }
  const unsubscribe = deps.hub.subscribe(client, sub.routes)
  const stopKeepAlive = deps.keepAlive.add(stream)
  return new Promise((resolve) => {
    const shutdown = (): void => {
      // SUB-9, SUB-10: cancelled for the listen id, then the closing result.
      stream.notify(tagged(id, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'server shutting down' } }))
      stream.finish({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [META.subscriptionId]: id, [META.serverInfo]: deps.serverInfo } } })
    }
    deps.closers.add(shutdown)
    res.once('close', () => {
      deps.closers.delete(shutdown)
      stopKeepAlive()
      unsubscribe()
      resolve(OUTCOME.ok)
    })
    if (sub.closing) shutdown()
  })
}
