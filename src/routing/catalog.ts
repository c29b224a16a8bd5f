// Per-backend cache of tools/prompts/resources/templates, honouring each backend's ttlMs
// (CACHE-4) and invalidated by list_changed (CACHE-8). Routing may use a stale copy (CACHE-9). A
// name missing from a list is refetched for at most once per `minRefreshMs`, and a name that
// missed in a list is remembered with it (negative caching), so invented names cannot make the
// gateway refetch (and re-parse) a large list per call; the old copy serves until the new one is in.
import { BackendError, type Backend } from '../upstream/backend.ts'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { readCacheHints, type CacheHints } from '../protocol/result.ts'
import type { ListKind } from './list-kinds.ts'
import { UriTemplateMatcher } from './uri-template.ts'
import type { UpstreamParamsBuilder } from './upstream-params.ts'

export const MAX_UPSTREAM_PAGES = 100
export const DEFAULT_MIN_REFRESH_MS = 5_000
// Names remembered as missing from one list; past this the memory starts over.
const MAX_MISSES = 10_000

export interface CachedList {
  items: JsonObject[]
  hints: CacheHints
  fetchedAt: number
  // Lookup by name or URI, built on first use (routing hot path).
  index?: Map<string, JsonObject>
  // Names looked up and not found in this very list (negative cache).
  misses?: Set<string>
}

export interface CatalogOptions {
  now?: () => number
  // A list is refetched for a name it lacks only when it is at least this old.
  minRefreshMs?: number
}

export function findItem(list: CachedList, key: 'name' | 'uri', value: string): JsonObject | undefined {
  if (!list.index) {
    list.index = new Map()
    for (const item of list.items) if (typeof item[key] === 'string') list.index.set(item[key] as string, item)
  }
  return list.index.get(value)
}

function noteMiss(list: CachedList, name: string): void {
  list.misses ??= new Set()
  if (list.misses.size >= MAX_MISSES) list.misses.clear()
  list.misses.add(name)
}

export class Catalog {
  // Compiled resource templates, for routing by URI (compiled once, not per request).
  readonly templates = new UriTemplateMatcher()
  readonly #entries = new Map<string, CachedList>()
  readonly #inflight = new Map<string, Promise<CachedList>>()
  readonly #params: UpstreamParamsBuilder
  readonly #now: () => number
  readonly #minRefreshMs: number

  constructor(params: UpstreamParamsBuilder, options: CatalogOptions = {}) {
    this.#params = params
    this.#now = options.now ?? Date.now
    this.#minRefreshMs = options.minRefreshMs ?? DEFAULT_MIN_REFRESH_MS
  }

  // A fresh list (refetched when its ttlMs ran out); `allowStale` returns any cached copy. A list
  // that cannot be fetched rejects with a BackendError naming the backend (the caller logs it).
  async get(backend: Backend, kind: ListKind, options: { allowStale?: boolean; signal?: AbortSignal } = {}): Promise<CachedList> {
    const key = `${backend.name}\u0000${kind.id}`
    const cached = this.#entries.get(key)
    if (cached && (options.allowStale || this.#isFresh(cached))) return cached
    return this.#fetch(backend, kind)
  }

  // CACHE-9: `list` lacks `name`, which may be news: the list refetched (shared with concurrent
  // callers), unless the name already missed in this list or the list is younger than
  // minRefreshMs. Resolves with the list to look in again, or undefined when nothing was refetched.
  async refreshForMiss(backend: Backend, kind: ListKind, list: CachedList, name: string): Promise<CachedList | undefined> {
    if (list.misses?.has(name) || this.#now() - list.fetchedAt < this.#minRefreshMs) {
      noteMiss(list, name)
      return undefined
    }
    const fresh = await this.#fetch(backend, kind)
    if (!findItem(fresh, 'name', name)) noteMiss(fresh, name)
    return fresh
  }

  peek(backend: Backend, kind: ListKind): CachedList | undefined {
    return this.#entries.get(`${backend.name}\u0000${kind.id}`)
  }

  invalidate(backendName: string, kindId?: ListKind['id']): void {
    for (const key of [...this.#entries.keys()]) {
      const [name, id] = key.split('\u0000')
      if (name === backendName && (kindId === undefined || id === kindId)) this.#entries.delete(key)
    }
  }

  remainingTtl(list: CachedList): number {
    return Math.max(0, Math.floor(list.fetchedAt + list.hints.ttlMs - this.#now()))
  }

  // One fetch per backend and kind at a time; the fetched list replaces the cached one.
  async #fetch(backend: Backend, kind: ListKind): Promise<CachedList> {
    const key = `${backend.name}\u0000${kind.id}`
    let pending = this.#inflight.get(key)
    if (!pending) {
      pending = this.#fetchAll(backend, kind).then((list) => {
        this.#entries.set(key, list)
        return list
      }).finally(() => this.#inflight.delete(key))
      this.#inflight.set(key, pending)
    }
    return pending
  }

  #isFresh(list: CachedList): boolean {
    return this.#now() < list.fetchedAt + list.hints.ttlMs
  }

  // PAGE-3: follow the backend's own cursors to the end; one cacheScope for all (PAGE-5).
  async #fetchAll(backend: Backend, kind: ListKind): Promise<CachedList> {
    const items: JsonObject[] = []
    const hints: CacheHints[] = []
    const fetchedAt = this.#now()
    let cursor: string | undefined
    for (let page = 0; page < MAX_UPSTREAM_PAGES; page++) {
      const params = this.#params.forList(backend, cursor)
      const reply = await backend.request({ method: kind.method, params, signal: AbortSignal.timeout(30_000) })
      // The gateway asked, so the backend refusing its own list is a bad reply from it (ERR-7).
      if (!reply.ok) {
        throw new BackendError(backend.name, 'bad_reply', `${kind.method} answered error ${reply.error.code}: ${reply.error.message}`, { cause: reply.error })
      }
      const pageItems = reply.result[kind.key]
      if (Array.isArray(pageItems)) items.push(...pageItems.filter(isJsonObject))
      hints.push(readCacheHints(reply.result))
      cursor = typeof reply.result.nextCursor === 'string' ? reply.result.nextCursor : undefined
      if (cursor === undefined) break
    }
    const ttlMs = Math.min(...hints.map((h) => h.ttlMs))
    const cacheScope = hints.some((h) => h.cacheScope === 'private') ? 'private' : 'public'
    return { items, hints: { ttlMs, cacheScope }, fetchedAt }
  }
}
