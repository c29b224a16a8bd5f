// subscriptions/listen fan-in (SUB-3, SUB-4): one upstream listen per backend for list changes, and one per
// (backend, URI) for resource updates, opened by the first subscriber and closed when the last one
// leaves (ref-counted), all shared by every client; each re-opened with backoff while wanted (SUB-11).
// Upstream list changes also invalidate the catalog (CACHE-8). A backend that answers listen
// without a stream has its listen treated as unavailable: re-tried at the longest backoff, its
// lists refreshed on a timer meanwhile (list-refresh.ts), its URIs left out of acknowledgments.
// A backend's logs outside any request come through its list listen too (ListenSink.onLog) and go
// to the clients that want them (the 2025-11-25 sessions' GET streams).
import { GatewayError } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import {
  LIST_CHANGES, RESOURCE_UPDATED, SUBSCRIPTIONS_ACKNOWLEDGED, canSubscribeResources, coversUri, hubFilterFor, listChangeOf, subscribedUris,
} from '../protocol/subscriptions.ts'
import { toGatewayLogger } from './names.ts'
import { bestRoute, resourceKey, withinListenBudget, type ResourceRoute } from './resource-routes.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import type { Catalog } from './catalog.ts'
import { resolveUri } from './resolve.ts'
import { computeBackoffMs, REPROBE_BACKOFF, startTimer } from '../upstream/shared/backoff.ts'
import { DEFAULT_LIST_REFRESH_MS, ListRefresher, UNSUPPORTED_LISTEN_RETRY_ATTEMPT } from './list-refresh.ts'
import { BackendError } from '../upstream/backend.ts'
import type { ClientSubscription, ResourceListen, Upstream } from './listen-upstream.ts'

export type { ResourceRoute } from './resource-routes.ts'

export type { ClientSubscription } from './listen-upstream.ts'

// refreshMs: how often the lists of a backend without a listen stream are re-read.
export interface ListenHubOptions { logger: Logger; refreshMs?: number }

export class ListenHub {
  readonly #backends: BackendSet
  readonly #catalog: Catalog
  readonly #logger: Logger
  readonly #refreshMs: number
  readonly #clients = new Set<ClientSubscription>()
  // Each client's resource routes, for choosing which upstream delivers an update to it.
  readonly #routes = new Map<ClientSubscription, readonly ResourceRoute[]>()
  readonly #lists = new Map<string, Upstream>()
  // Keyed by backend name and URI: at most one upstream listen per pair.
  readonly #resources = new Map<string, ResourceListen>()
  #closed = false

  constructor(backends: BackendSet, catalog: Catalog, options: ListenHubOptions) {
    this.#backends = backends
    this.#catalog = catalog
    this.#logger = options.logger
    this.#refreshMs = options.refreshMs ?? DEFAULT_LIST_REFRESH_MS
  }

  // After the first probes: open a list-change listen on every backend that can send them.
  start(): void {
    for (const entry of this.#backends.entries) {
      if (this.#closed || this.#lists.has(entry.backend.name)) continue
      const { backend } = entry
      const upstream: Upstream = {
        entry,
        filter: () => hubFilterFor(backend.capabilities(), backend.status().era === 'legacy'),
        onNotification: (n) => this.#onListChange(entry, n),
        onLog: (n) => this.#onLog(entry, n),
        stopped: false,
      }
      this.#lists.set(entry.backend.name, upstream)
      this.#open(upstream, 0)
    }
  }

  // SUB-3: each URI goes to the backend that owns it, if that backend can subscribe and has listen
  // budget left; the others are left out of the acknowledgment. A URI whose owner could not be
  // decided (a backend down or failing its lists) is left out too, logged once per backend.
  async routeResources(uris: readonly string[]): Promise<ResourceRoute[]> {
    const failed = new Map<string, { err: BackendError; uris: string[] }>()
    const resolved = await Promise.all([...new Set(uris)].map(async (uri): Promise<ResourceRoute[]> => {
      try {
        const entry = await resolveUri({ backends: this.#backends, catalog: this.#catalog }, uri)
        return this.#canSubscribe(entry) ? [{ uri, entry }] : []
      } catch (err) {
        if (err instanceof GatewayError) return [] // nobody owns it (ERR-10)
        if (!(err instanceof BackendError)) throw err
        const seen = failed.get(err.backend)
        if (seen) seen.uris.push(uri)
        else failed.set(err.backend, { err, uris: [uri] })
        return []
      }
    }))
    for (const [backend, { err, uris: left }] of failed) {
      this.#logger.warn({ backend, reason: err.reason, err, uris: left }, 'resource subscriptions left out: their owner could not be decided')
    }
    return this.#withinBudget(resolved.flat())
  }

  // SUB-3: only a backend whose listen streams can deliver the updates.
  #canSubscribe(entry: BackendEntry): boolean {
    const lists = this.#lists.get(entry.backend.name)
    return entry.backend.listen !== undefined && lists?.unsupported !== true && canSubscribeResources(entry.backend.capabilities())
  }

  #withinBudget(routes: ResourceRoute[]): ResourceRoute[] {
    return withinListenBudget(routes, this.#resources, (route) => {
      this.#logger.warn({ backend: route.entry.backend.name, uri: route.uri }, 'resource subscription over the listen budget; left out')
    })
  }

  subscribe(client: ClientSubscription, routes: readonly ResourceRoute[] = []): () => void {
    this.#clients.add(client)
    this.#routes.set(client, routes)
    for (const route of routes) this.#acquire(route, client)
    return () => {
      if (!this.#clients.delete(client)) return
      this.#routes.delete(client)
      for (const route of routes) this.#release(route, client)
    }
  }

  // A reload removed (or replaced) these backends: their upstream listens stop; start() then opens
  // the new ones. The clients' own streams stay open.
  forget(entries: readonly BackendEntry[]): void {
    const gone = new Set(entries)
    for (const [name, upstream] of this.#lists) if (gone.has(upstream.entry)) (this.#stop(upstream), this.#lists.delete(name))
    for (const [key, listen] of this.#resources) if (gone.has(listen.entry)) (this.#stop(listen), this.#resources.delete(key))
  }

  // A reload changed what the lists hold: each change goes to the clients that asked for it.
  announce(changes: readonly string[]): void {
    for (const method of changes) this.#broadcast({ jsonrpc: '2.0', method })
  }

  #broadcast(notification: JsonRpcNotification): void {
    for (const client of this.#clients) if (client.wants(notification)) client.deliver(notification)
  }

  close(): void {
    this.#closed = true
    for (const upstream of [...this.#lists.values(), ...this.#resources.values()]) this.#stop(upstream)
    this.#lists.clear()
    this.#resources.clear()
  }

  #acquire(route: ResourceRoute, client: ClientSubscription): void {
    const key = resourceKey(route)
    let listen = this.#resources.get(key)
    if (!listen) {
      listen = this.#createResourceListen(route)
      this.#resources.set(key, listen)
      this.#open(listen, 0)
    }
    listen.clients.add(client)
  }

  #createResourceListen(route: ResourceRoute): ResourceListen {
    const filter = { resourceSubscriptions: [route.uri] }
    const listen: ResourceListen = {
      entry: route.entry,
      uri: route.uri,
      clients: new Set(),
      filter: () => filter,
      onNotification: (n) => this.#onResourceUpdate(listen, n),
      stopped: false,
    }
    return listen
  }

  #release(route: ResourceRoute, client: ClientSubscription): void {
    const key = resourceKey(route)
    const listen = this.#resources.get(key)
    if (!listen?.clients.delete(client) || listen.clients.size > 0) return
    this.#resources.delete(key)
    this.#stop(listen)
  }

  // `attempt` counts the re-opens since the stream was last up (shared/backoff.ts).
  #open(upstream: Upstream, attempt: number): void {
    const { backend } = upstream.entry
    if (this.#closed || upstream.stopped || !backend.listen) return
    const filter = backend.status().up ? upstream.filter() : undefined
    if (!filter) return this.#retry(upstream, attempt)
    const openedAt = Date.now()
    const onOpen = (): void => {
      if (upstream.stopped) return
      this.#streaming(upstream)
      this.#established(upstream, filter)
    }
    upstream.close = backend.listen(filter, {
      onOpen,
      onNotification: (n) => {
        if (upstream.stopped) return
        if (n.method === SUBSCRIPTIONS_ACKNOWLEDGED) onOpen()
        else upstream.onNotification(n)
      },
      onClose: (reason) => {
        upstream.close = undefined
        this.#logger.debug({ backend: backend.name, reason }, 'upstream listen closed; re-opening')
        // A stream that stayed up a while starts its backoff over (SUB-11).
        this.#retry(upstream, Date.now() - openedAt > REPROBE_BACKOFF.maxMs ? 0 : attempt)
      },
      onUnsupported: (reason) => this.#unsupported(upstream, filter, reason),
      ...(upstream.onLog && { onLog: (n: JsonRpcNotification) => { if (!upstream.stopped) upstream.onLog?.(n) } }),
    })
  }

  #unsupported(upstream: Upstream, filter: JsonObject, reason: string): void {
    upstream.close = undefined
    if (this.#closed || upstream.stopped) return
    const { backend } = upstream.entry
    if (!upstream.unsupported) this.#logger.warn({ backend: backend.name, reason }, 'upstream listen unavailable; refreshing its lists on a timer')
    upstream.unsupported = true
    if (this.#lists.get(backend.name) === upstream && !upstream.refresher) {
      const deps = { catalog: this.#catalog, logger: this.#logger, refreshMs: this.#refreshMs, onChange: this.#onListChange.bind(this) }
      upstream.refresher = new ListRefresher(deps, upstream.entry, filter)
    }
    this.#retry(upstream, UNSUPPORTED_LISTEN_RETRY_ATTEMPT)
  }

  // The backend streams (again): its own notifications replace the refresh timer.
  #streaming(upstream: Upstream): void {
    upstream.unsupported = false
    upstream.refresher?.stop()
    upstream.refresher = undefined
  }

  // SUB-14: after a gap (the stream dropped, or a stdio child restarted) a change may have been
  // missed: once the stream is back, say so to the clients that asked.
  #established(upstream: Upstream, filter: JsonObject): void {
    if (upstream.established) this.#catchUp(upstream, filter)
    upstream.established = true
  }

  #catchUp(upstream: Upstream, filter: JsonObject): void {
    for (const change of LIST_CHANGES) {
      if (filter[change.filterKey] === true) upstream.onNotification({ jsonrpc: '2.0', method: change.method })
    }
    for (const uri of subscribedUris(filter)) upstream.onNotification({ jsonrpc: '2.0', method: RESOURCE_UPDATED, params: { uri } })
  }

  #retry(upstream: Upstream, attempt: number): void {
    if (this.#closed || upstream.stopped) return
    upstream.timer = startTimer(computeBackoffMs(attempt, REPROBE_BACKOFF), () => {
      upstream.timer = undefined
      this.#open(upstream, attempt + 1)
    })
  }

  #stop(upstream: Upstream): void {
    upstream.stopped = true
    clearTimeout(upstream.timer)
    upstream.refresher?.stop()
    upstream.close?.()
    upstream.close = undefined
  }

  #onListChange(entry: BackendEntry, notification: JsonRpcNotification): void {
    const change = listChangeOf(notification.method)
    if (!change) return
    for (const kind of change.kinds) this.#catalog.invalidate(entry.backend.name, kind)
    this.#broadcast(notification)
  }

  // Named after its backend, to every client that wants it at its level (LOG-3 keeps logs off
  // modern listen streams: those clients never want one).
  #onLog(entry: BackendEntry, notification: JsonRpcNotification): void {
    const { logger: own, ...params } = notification.params ?? {}
    const logger = toGatewayLogger(entry.config.namespace, this.#backends.separator, own)
    this.#broadcast({ ...notification, params: logger === undefined ? params : { ...params, logger } })
  }

  // Only the clients of this (backend, URI) get it, and a client subscribed to a parent and a child
  // URI gets it once: from the most specific of its subscriptions that covers the updated URI.
  #onResourceUpdate(listen: ResourceListen, notification: JsonRpcNotification): void {
    const uri = notification.params?.uri
    if (notification.method !== RESOURCE_UPDATED || typeof uri !== 'string' || !coversUri(listen.uri, uri)) return
    for (const client of listen.clients) {
      if (bestRoute(this.#routes.get(client) ?? [], listen.entry, uri) === listen.uri) client.deliver(notification)
    }
  }
}
