// Per-backend cache of tools/prompts/resources/templates, honouring each backend's ttlMs
// (CACHE-4) and invalidated by list_changed (CACHE-8). Routing may use a stale copy (CACHE-9).
// A `private` list fetched for an authenticated caller is kept for that caller only (CACHE-7,
// CACHE-12): `forPrincipal` gives a view on the same store that fetches on their behalf. A
// name missing from a list is refetched for at most once per `minRefreshMs`, and a name that
// missed in a list is remembered with it (negative caching), so invented names cannot make the
// gateway refetch (and re-parse) a large list per call; the old copy serves until the new one is in.
import type { Principal } from '../auth/principal.ts'
import { BackendError, type Backend } from '../upstream/backend.ts'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.ts'
import { readCacheHints, type CacheHints } from '../protocol/result.ts'
import type { ListKind } from './list-kinds.ts'
import { UriTemplateMatcher } from './uri-template.ts'
import type { UpstreamParamsBuilder } from './upstream-params.ts'

export const MAX_UPSTREAM_PAGES = 100
// Lists kept per caller (private ones), over every caller: the oldest go first.
export const MAX_PRIVATE_LISTS = 10_000
export const DEFAULT_MIN_REFRESH_MS = 5_000
// Names remembered as missing from one list; past this the memory starts over.
const MAX_MISSES = 10_000

interface Store {
  entries: Map<string, CachedList>
  inflight: Map<string, Promise<CachedList>>
  privateKeys: Set<string>
  // A list is refetched for a name it lacks only when it is at least this old.
  minRefreshMs: number
}

function listKey(backend: string, kind: string): string {
  return `${backend}\u0000${kind}`
}

export interface CachedList {
  items: JsonObject[]
  hints: CacheHints
  fetchedAt: number
  // Lookup by name or URI, built on first use (routing hot path).
  index?: Map<string, JsonObject>
  // Names looked up and not found in this very list (negative cache).
  misses?: Set<string>
}

function noteMiss(list: CachedList, name: string): void {
  list.misses ??= new Set()
  if (list.misses.size >= MAX_MISSES) list.misses.clear()
  list.misses.add(name)
}

export function findItem(list: CachedList, key: 'name' | 'uri', value: string): JsonObject | undefined {
  if (!list.index) {
    list.index = new Map()
    for (const item of list.items) if (typeof item[key] === 'string') list.index.set(item[key] as string, item)
  }
  return list.index.get(value)
}

export class Catalog {
  // Compiled resource templates, for routing by URI (compiled once, not per request).
  readonly templates: UriTemplateMatcher = new UriTemplateMatcher()
  readonly #store: Store
  readonly #params: UpstreamParamsBuilder
  readonly #now: () => number
  // The caller lists are fetched for (and private ones kept for); undefined: the gateway itself.
  readonly #principal: Principal | undefined

  constructor(params: UpstreamParamsBuilder, now: () => number = Date.now, view?: { store: Store; principal: Principal; templates: UriTemplateMatcher }) {
    this.#params = params
    this.#now = now
    this.#store = view?.store ?? { entries: new Map(), inflight: new Map(), privateKeys: new Set(), minRefreshMs: DEFAULT_MIN_REFRESH_MS }
    this.#principal = view?.principal
    if (view) this.templates = view.templates
  }

  // The limit of refetches for unknown names (config limits.listRefreshMs), for every view.
  set minRefreshMs(ms: number) {
    this.#store.minRefreshMs = ms
  }

  // The same cache, fetching for `principal`; anonymous callers share the gateway's own view.
  forPrincipal(principal: Principal): Catalog {
    if (principal.isAnonymous) return this
    return new Catalog(this.#params, this.#now, { store: this.#store, principal, templates: this.templates })
  }

  // A fresh list (refetched when its ttlMs ran out); `allowStale` returns any cached copy. A list
  // that cannot be fetched rejects with a BackendError naming the backend (the caller logs it).
  async get(backend: Backend, kind: ListKind, options: { allowStale?: boolean; signal?: AbortSignal } = {}): Promise<CachedList> {
    const found = this.#lookup(backend, kind, options.allowStale === true)
    if (found !== undefined) return found
    return this.#fetch(backend, kind, this.#ownKey(listKey(backend.name, kind.id)))
  }

  // The cached copy get({ allowStale: true }) would answer with, without waiting: the call path's
  // lookup when the list is already here (routing/resolve.ts). Undefined: get() must fetch.
  cached(backend: Backend, kind: ListKind): CachedList | undefined {
    return this.#lookup(backend, kind, true)
  }

  // Where this view keeps a list: the shared key for the gateway itself, else the caller's own.
  #ownKey(shared: string): string {
    return this.#principal === undefined ? shared : `${shared}\u0000${this.#principal.cacheKey}`
  }

  // The public copy (any caller may use it), else the caller's own; `anyAge`: stale ones too.
  #lookup(backend: Backend, kind: ListKind, anyAge: boolean): CachedList | undefined {
    const shared = listKey(backend.name, kind.id)
    const publicList = this.#store.entries.get(shared)
    if (publicList !== undefined && (anyAge || this.#isFresh(publicList)) && (this.#principal === undefined || publicList.hints.cacheScope === 'public')) return publicList
    if (this.#principal === undefined) return undefined
    const own = this.#store.entries.get(this.#ownKey(shared))
    return own !== undefined && (anyAge || this.#isFresh(own)) ? own : undefined
  }

  // CACHE-9: true (and the miss remembered) when `list` lacking `name` calls for no refetch: the name
  // already missed in this list, or the list is younger than minRefreshMs. Synchronous, so the
  // call path can pass on to the next backend without waiting (routing/resolve.ts).
  settledMiss(list: CachedList, name: string): boolean {
    if (!list.misses?.has(name) && this.#now() - list.fetchedAt >= this.#store.minRefreshMs) return false
    noteMiss(list, name)
    return true
  }

  // CACHE-9: `list` lacks `name`, which may be news: the list refetched (shared with concurrent
  // callers), unless the name already missed in this list or the list is younger than
  // minRefreshMs. Resolves with the list to look in again, or undefined when nothing was refetched.
  async refreshForMiss(backend: Backend, kind: ListKind, list: CachedList, name: string): Promise<CachedList | undefined> {
    if (this.settledMiss(list, name)) return undefined
    const fresh = await this.#fetch(backend, kind, this.#ownKey(listKey(backend.name, kind.id)))
    if (!findItem(fresh, 'name', name)) noteMiss(fresh, name)
    return fresh
  }

  // HDR-12: `list` found out of date by a backend: refetched (shared with concurrent callers) unless
  // younger than minRefreshMs, CACHE-9's bound. Undefined when nothing was refetched.
  async refresh(backend: Backend, kind: ListKind, list: CachedList): Promise<CachedList | undefined> {
    if (this.#now() - list.fetchedAt < this.#store.minRefreshMs) return undefined
    return this.#fetch(backend, kind, this.#ownKey(listKey(backend.name, kind.id)))
  }

  // One fetch per key at a time; the fetched list replaces the cached one (public lists are shared).
  #fetch(backend: Backend, kind: ListKind, key: string): Promise<CachedList> {
    let pending = this.#store.inflight.get(key)
    if (!pending) {
      pending = this.#fetchAll(backend, kind).then((list) => {
        this.#keep(list.hints.cacheScope === 'public' ? listKey(backend.name, kind.id) : key, list)
        return list
      }).finally(() => this.#store.inflight.delete(key))
      this.#store.inflight.set(key, pending)
    }
    return pending
  }

  peek(backend: Backend, kind: ListKind): CachedList | undefined {
    return this.#store.entries.get(listKey(backend.name, kind.id))
  }

  invalidate(backendName: string, kindId?: ListKind['id']): void {
    for (const key of [...this.#store.entries.keys()]) {
      const [name, id] = key.split('\u0000')
      if (name === backendName && (kindId === undefined || id === kindId)) this.#forget(key)
    }
  }

  #keep(key: string, list: CachedList): void {
    const { entries, privateKeys } = this.#store
    if (key.split('\u0000').length > 2 && !privateKeys.has(key)) {
      if (privateKeys.size >= MAX_PRIVATE_LISTS) this.#forget(privateKeys.values().next().value as string)
      privateKeys.add(key)
    }
    entries.set(key, list)
  }

  #forget(key: string): void {
    this.#store.entries.delete(key)
    this.#store.privateKeys.delete(key)
  }

  remainingTtl(list: CachedList): number {
    return Math.max(0, Math.floor(list.fetchedAt + list.hints.ttlMs - this.#now()))
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
      const reply = await backend.request({ method: kind.method, params, signal: AbortSignal.timeout(30_000), principal: this.#principal })
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
