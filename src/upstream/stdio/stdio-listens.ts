// Listen streams on a stdio backend. Modern children: one subscriptions/listen request per open
// listen, with its own gateway id; notifications tagged with that id in
// `_meta["io.modelcontextprotocol/subscriptionId"]` go to its sink as received (SUB-4, STDIO-5);
// closing sends notifications/cancelled for the id (SUB-8); after a restart every open listen is
// sent again (SUB-12). Legacy children: their unsolicited list_changed / resources/updated
// notifications go to every open sink whose filter asked for them.
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { getMeta, META } from '../../protocol/meta.ts'
import type { Era, ListenSink } from '../backend.ts'
import type { IdAllocator } from './stdio-ids.ts'
import type { ChildReply, StdioSession } from './stdio-session.ts'
import { isSubscriptionNotification, isWantedByFilter, subscribedUris } from '../../protocol/subscriptions.ts'

interface OpenListen {
  filter: JsonObject
  sink: ListenSink
  // The id of the subscriptions/listen request on the current child, while one is open.
  upstreamId?: string
}

export interface Attachment {
  session: StdioSession
  era: Era
  meta: JsonObject
}

export interface ListenRegistryOptions {
  ids: IdAllocator
  logger: Logger
}

export interface ListenRegistry {
  // Sent at once when a child is attached, else when the next one is.
  open(filter: JsonObject, sink: ListenSink): () => void
  // A child is up: (re)send every open listen to it (SUB-12).
  attach(attachment: Attachment): void
  // The child is gone: keep the listens, to be sent again to the next one.
  detach(): void
  route(notification: JsonRpcNotification, era: Era): boolean
  // A log that belongs to no call: to every open listen that takes logs (ListenSink.onLog).
  routeLog(notification: JsonRpcNotification): boolean
  closeAll(reason: string): void
}

export function createListenRegistry(options: ListenRegistryOptions): ListenRegistry {
  const listens = new Set<OpenListen>()
  let current: Attachment | undefined

  const end = (listen: OpenListen, reason: string): void => {
    if (!listens.delete(listen)) return
    listen.sink.onClose(reason)
  }
  const send = (listen: OpenListen, attachment: Attachment): void => {
    if (attachment.era !== 'modern') return subscribeLegacy(listen, attachment, options)
    const id = options.ids.requestId()
    listen.upstreamId = id
    const params = { _meta: attachment.meta, notifications: listen.filter }
    attachment.session.request({ id, method: 'subscriptions/listen', params }, (reply) => {
      if (listen.upstreamId === id && reply.ok !== 'gone') end(listen, describeListenEnd(reply))
    })
  }
  const stop = (listen: OpenListen): void => {
    const id = listen.upstreamId
    listens.delete(listen)
    if (current?.era === 'legacy') return unsubscribeLegacy(listen, { open: listens, attachment: current, options })
    if (id === undefined || current === undefined) return
    current.session.forget(id)
    current.session.notify('notifications/cancelled', { requestId: id, reason: 'listen closed by the gateway' })
  }

  return {
    open(filter, sink) {
      const listen: OpenListen = { filter, sink }
      listens.add(listen)
      if (current !== undefined) send(listen, current)
      return () => stop(listen)
    },
    attach(attachment) {
      current = attachment
      for (const listen of listens) send(listen, attachment)
    },
    detach() {
      current = undefined
      for (const listen of listens) listen.upstreamId = undefined
    },
    route(notification, era) {
      if (era === 'modern') return routeTagged(notification, listens, end)
      return routeLegacy(notification, listens)
    },
    routeLog(notification) {
      const takers = [...listens].filter((listen) => listen.sink.onLog !== undefined)
      for (const listen of takers) listen.sink.onLog?.(notification)
      return takers.length > 0
    },
    closeAll(reason) {
      for (const listen of [...listens]) {
        stop(listen)
        listen.sink.onClose(reason)
      }
    },
  }
}

// Legacy children have no listen request: list changes arrive unsolicited, resource updates after
// resources/subscribe (SUB-13). The stream counts as established at once (a restart re-sends).
function subscribeLegacy(listen: OpenListen, attachment: Attachment, options: ListenRegistryOptions): void {
  for (const uri of subscribedUris(listen.filter)) legacyCall({ attachment, options }, 'resources/subscribe', uri)
  listen.sink.onOpen?.()
}

interface LegacyTarget {
  attachment: Attachment
  options: ListenRegistryOptions
}

// A URI no other open listen still wants is released.
function unsubscribeLegacy(listen: OpenListen, context: LegacyTarget & { open: Set<OpenListen> }): void {
  const stillWanted = new Set([...context.open].flatMap((other) => subscribedUris(other.filter)))
  for (const uri of subscribedUris(listen.filter)) if (!stillWanted.has(uri)) legacyCall(context, 'resources/unsubscribe', uri)
}

function legacyCall(target: LegacyTarget, method: string, uri: string): void {
  const { attachment, options } = target
  attachment.session.request({ id: options.ids.requestId(), method, params: { uri } }, (reply) => {
    if (reply.ok !== true) options.logger.warn({ method, uri }, 'stdio backend refused a resource subscription change')
  })
}

function describeListenEnd(reply: Exclude<ChildReply, { ok: 'gone' }>): string {
  if (reply.ok === true) return 'the backend ended the subscription'
  if (reply.ok === false) return `the backend refused the subscription: ${reply.error.message}`
  return `the backend answered the subscription with an invalid response: ${reply.detail}`
}

function routeTagged(notification: JsonRpcNotification, listens: Set<OpenListen>, end: (listen: OpenListen, reason: string) => void): boolean {
  const params = notification.params
  if (notification.method === 'notifications/cancelled') {
    // SUB-10: a server's notifications/cancelled may only name a listen request.
    const listen = findByUpstreamId(listens, params?.requestId)
    if (listen !== undefined) end(listen, 'the backend cancelled the subscription')
    return listen !== undefined
  }
  const listen = findByUpstreamId(listens, getMeta(params)?.[META.subscriptionId])
  listen?.sink.onNotification(notification)
  return listen !== undefined
}

function findByUpstreamId(listens: Set<OpenListen>, id: unknown): OpenListen | undefined {
  if (typeof id !== 'string') return undefined
  for (const listen of listens) if (listen.upstreamId === id) return listen
  return undefined
}

function routeLegacy(notification: JsonRpcNotification, listens: Set<OpenListen>): boolean {
  const wanted = [...listens].filter((listen) => isWantedByFilter(notification, listen.filter))
  for (const listen of wanted) listen.sink.onNotification(notification)
  return isSubscriptionNotification(notification.method)
}
