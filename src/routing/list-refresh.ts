// A backend that declared listChanged but answers subscriptions/listen without a stream cannot tell
// the gateway about list changes: its lists are re-read on a timer instead (with jitter, so many
// such backends do not fire together), and a list whose digest changed is invalidated in the
// catalog and announced to listeners as the backend would have (SUB-6, CACHE-8). This is what
// lets the gateway keep acknowledging those list changes (SUB-3) and declaring them (CAP-6).
import type { Logger } from '../observability/logger.ts'
import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import { LIST_CHANGES, type ListChange } from '../protocol/subscriptions.ts'
import { computeBackoffMs, startTimer } from '../upstream/shared/backoff.ts'
import { listDigest } from './aggregate.ts'
import type { BackendEntry } from './backend-set.ts'
import type { Catalog } from './catalog.ts'
import { listKind } from './list-kinds.ts'

export const DEFAULT_LIST_REFRESH_MS = 30_000
// An unsupported listen is asked again at the longest backoff (an attempt that reaches maxMs).
export const UNSUPPORTED_LISTEN_RETRY_ATTEMPT = 30
// Up to this fraction of each interval is taken off at random.
const REFRESH_JITTER_RATIO = 0.2

export interface RefreshDeps {
  catalog: Catalog
  logger: Logger
  refreshMs: number
  // A synthesized list_changed: handled like one the backend sent.
  onChange: (entry: BackendEntry, notification: JsonRpcNotification) => void
}

export class ListRefresher {
  readonly #deps: RefreshDeps
  readonly #entry: BackendEntry
  readonly #changes: readonly ListChange[]
  // Digest per list change (its kinds' lists, in order); absent until first read.
  readonly #digests = new Map<string, string>()
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  // `filter`: the list changes the backend declared (listFilterFor); only those are refreshed.
  constructor(deps: RefreshDeps, entry: BackendEntry, filter: JsonObject) {
    this.#deps = deps
    this.#entry = entry
    this.#changes = LIST_CHANGES.filter((change) => filter[change.filterKey] === true)
    // The baseline now: a change made after the listen failed is seen at the first tick.
    this.#tick(false)
  }

  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
  }

  #schedule(): void {
    if (this.#stopped) return
    const { refreshMs } = this.#deps
    const delayMs = computeBackoffMs(0, { initialMs: refreshMs, maxMs: refreshMs, jitterRatio: REFRESH_JITTER_RATIO })
    this.#timer = startTimer(delayMs, () => this.#tick(true))
  }

  #tick(announce: boolean): void {
    this.#refreshAll(announce).catch((err: unknown) => {
      this.#deps.logger.warn({ backend: this.#entry.backend.name, err }, 'list refresh failed; trying again at the next interval')
    }).finally(() => this.#schedule())
  }

  async #refreshAll(announce: boolean): Promise<void> {
    for (const change of this.#changes) {
      if (this.#stopped || !this.#entry.backend.status().up) return
      const digest = await this.#read(change)
      const before = this.#digests.get(change.method)
      this.#digests.set(change.method, digest)
      if (announce && before !== undefined && before !== digest && !this.#stopped) {
        this.#deps.onChange(this.#entry, { jsonrpc: '2.0', method: change.method })
      }
    }
  }

  // A fresh read of each list the change covers (the cached copy is what is being checked).
  async #read(change: ListChange): Promise<string> {
    const { catalog } = this.#deps
    const parts: string[] = []
    for (const id of change.kinds) {
      const kind = listKind(id)
      catalog.invalidate(this.#entry.backend.name, id)
      const list = await catalog.get(this.#entry.backend, kind)
      parts.push(listDigest(kind, list.items))
    }
    return parts.join('.')
  }
}
