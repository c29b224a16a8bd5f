// subscriptions/listen fan-in (G9): one upstream listen per backend for list changes (opened once,
// re-opened with backoff, SUB-11), one per (backend, URI) for resource updates, shared by every client.
// Upstream list changes also invalidate the catalog (CACHE-8).
import type { Logger } from '../observability/logger.ts'
import { isJsonObject, type JsonObject, type JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import type { Catalog } from './catalog.ts'
import { REPROBE_MAX_MS, REPROBE_MIN_MS } from '../upstream/reprober.ts'

export const LIST_CHANGED = {
  'notifications/tools/list_changed': { filterKey: 'toolsListChanged', kinds: ['tools'] },
  'notifications/prompts/list_changed': { filterKey: 'promptsListChanged', kinds: ['prompts'] },
  'notifications/resources/list_changed': { filterKey: 'resourcesListChanged', kinds: ['resources', 'templates'] },
} as const

export interface ClientSubscription {
  wants(notification: JsonRpcNotification): boolean
  deliver(notification: JsonRpcNotification): void
}

export class ListenHub {
  readonly #backends: BackendSet
  readonly #catalog: Catalog
  readonly #logger: Logger
  readonly #clients = new Set<ClientSubscription>()
  readonly #closers = new Map<string, () => void>()
  readonly #timers = new Set<NodeJS.Timeout>()
  #closed = false

  constructor(backends: BackendSet, catalog: Catalog, logger: Logger) {
    this.#backends = backends
    this.#catalog = catalog
    this.#logger = logger
  }

  // After the first probes: open a list-change listen on every backend that can send them.
  start(): void {
    for (const entry of this.#backends.entries) this.#open(entry, REPROBE_MIN_MS)
  }

  subscribe(client: ClientSubscription): () => void {
    this.#clients.add(client)
    return () => this.#clients.delete(client)
  }

  close(): void {
    this.#closed = true
    for (const close of this.#closers.values()) close()
    for (const timer of this.#timers) clearTimeout(timer)
    this.#closers.clear()
  }

  #filterFor(entry: BackendEntry): JsonObject | undefined {
    const caps = entry.backend.capabilities()
    const filter: JsonObject = {}
    for (const [capability, key] of [['tools', 'toolsListChanged'], ['prompts', 'promptsListChanged'], ['resources', 'resourcesListChanged']]) {
      const cap = caps[capability]
      if (isJsonObject(cap) && cap.listChanged === true) filter[key] = true
    }
    return Object.keys(filter).length > 0 ? filter : undefined
  }

  #open(entry: BackendEntry, delayMs: number): void {
    const { backend } = entry
    if (this.#closed || !backend.listen) return
    const filter = backend.status().up ? this.#filterFor(entry) : undefined
    if (!filter) return this.#retry(entry, delayMs)
    const close = backend.listen(filter, {
      onNotification: (n) => this.#onUpstream(entry, n),
      onClose: (reason) => {
        this.#closers.delete(backend.name)
        this.#logger.debug({ backend: backend.name, reason }, 'upstream listen closed; re-opening')
        this.#retry(entry, delayMs)
      },
    })
    this.#closers.set(backend.name, close)
  }

  #retry(entry: BackendEntry, delayMs: number): void {
    if (this.#closed) return
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      this.#open(entry, Math.min(delayMs * 2, REPROBE_MAX_MS))
    }, delayMs)
    timer.unref()
    this.#timers.add(timer)
  }

  #onUpstream(entry: BackendEntry, notification: JsonRpcNotification): void {
    const change = LIST_CHANGED[notification.method as keyof typeof LIST_CHANGED]
    if (change) for (const kind of change.kinds) this.#catalog.invalidate(entry.backend.name, kind)
    else if (notification.method !== 'notifications/resources/updated') return
    for (const client of this.#clients) if (client.wants(notification)) client.deliver(notification)
  }
}
