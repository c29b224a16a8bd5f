// Finds the backend that owns a tool or prompt name, a resource URI or a completion reference.
// A candidate that is down, or whose list cannot be fetched, is passed over (as it is left out of
// the aggregated lists); when no other candidate owns the item, the lookup fails with that
// backend's failure (ERR-7, -32603 naming it). "Unknown" (-32602, ERR-9/10) is only the answer
// when every candidate's list was read and none has the item.
import { GatewayError } from '../errors.ts'
import { BackendError } from '../upstream/backend.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import { findItem, type CachedList, type Catalog } from './catalog.ts'
import { listKind, type ListKind } from './list-kinds.ts'

export interface ResolveDeps {
  backends: BackendSet
  catalog: Catalog
}

export interface Target {
  entry: BackendEntry
  // The backend's own name for the item (namespace stripped).
  name: string
  item: JsonObject | undefined
}

// The first backend failure met while looking: what a lookup that found no owner reports.
class Failures {
  #first: BackendError | undefined

  // A backend failure is kept (the first one); anything else is a bug and goes up unchanged.
  keep(err: unknown): undefined {
    if (!(err instanceof BackendError)) throw err
    this.#first ??= err
    return undefined
  }

  throwFirst(): void {
    if (this.#first !== undefined) throw this.#first
  }
}

interface Lookup {
  catalog: Catalog
  kind: ListKind
  failures: Failures
}

// A backend that is down may own anything (what it offers now is unknown); one that is up owns
// items of a kind only if it declared that capability.
function isCandidate(entry: BackendEntry, kind: ListKind): boolean {
  return !entry.backend.status().up || isJsonObject(entry.backend.capabilities()[kind.capability])
}

// The backend's list, or undefined when it is down or the fetch failed (the failure is kept).
async function fetchList(lookup: Lookup, entry: BackendEntry, allowStale: boolean): Promise<CachedList | undefined> {
  const { backend } = entry
  if (!backend.status().up) return lookup.failures.keep(new BackendError(backend.name, 'unreachable', 'backend is down'))
  return lookup.catalog.get(backend, lookup.kind, { allowStale }).catch((err: unknown) => lookup.failures.keep(err))
}

async function findNamed(lookup: Lookup, entry: BackendEntry, name: string): Promise<JsonObject | undefined> {
  const stale = await fetchList(lookup, entry, true)
  const found = stale && findItem(stale, 'name', name)
  if (found || !stale) return found
  // CACHE-9: an unknown name is evidence of change: refetch once, within the catalog's limits
  // (negative cache, minimum refresh interval), without dropping the cached copy meanwhile.
  const fresh = await lookup.catalog.refreshForMiss(entry.backend, lookup.kind, stale, name).catch((err: unknown) => lookup.failures.keep(err))
  return fresh && findItem(fresh, 'name', name)
}

export interface NameQuery {
  kind: 'tools' | 'prompts'
  // The client-facing (namespaced) name.
  name: string
}

// The target itself when the cached lists name it (the common case), else a promise of it.
export function resolveName(deps: ResolveDeps, query: NameQuery): Target | Promise<Target> {
  return resolveCached(deps, query) ?? resolveFetching(deps, query)
}

// The common case without waiting: the candidates that are up have their lists cached, and the
// first to name the item owns it; a list that lacks it is passed over as the full path would (a
// settled miss: no refetch due). Anything else (no copy yet, a miss that calls for a refetch, no
// owner at all) takes the full path, which visits the candidates in the same order.
function resolveCached(deps: ResolveDeps, query: NameQuery): Target | undefined {
  const kind = listKind(query.kind)
  for (const { entry, name } of deps.backends.candidates(query.name)) {
    if (!isCandidate(entry, kind)) continue
    // A backend that is down is passed over by the full path too (fetchList).
    if (!entry.backend.status().up) continue
    const list = deps.catalog.cached(entry.backend, kind)
    if (list === undefined) return undefined
    const item = findItem(list, 'name', name)
    if (item) return { entry, name, item }
    if (!deps.catalog.settledMiss(list, name)) return undefined
  }
  return undefined
}

async function resolveFetching(deps: ResolveDeps, query: NameQuery): Promise<Target> {
  const lookup: Lookup = { catalog: deps.catalog, kind: listKind(query.kind), failures: new Failures() }
  for (const { entry, name } of deps.backends.candidates(query.name)) {
    if (!isCandidate(entry, lookup.kind)) continue
    const item = await findNamed(lookup, entry, name)
    if (item) return { entry, name, item }
  }
  lookup.failures.throwFirst()
  throw new GatewayError(query.kind === 'tools' ? 'MCP_GATEWAY_TOOL_UNKNOWN' : 'MCP_GATEWAY_PROMPT_UNKNOWN', query.name)
}

function matchesTemplate(catalog: Catalog, list: CachedList | undefined, uri: string): boolean {
  return list?.items.some((t) => typeof t.uriTemplate === 'string' && catalog.templates.matches(t.uriTemplate, uri)) === true
}

// Resource URIs are never rewritten: exact URI from resources/list, then templates, then the only
// backend that serves resources at all (FEAT-9). Nothing owns it → -32602 with data.uri (ERR-10).
export async function resolveUri(deps: ResolveDeps, uri: string): Promise<BackendEntry> {
  const failures = new Failures()
  const resources: Lookup = { catalog: deps.catalog, kind: listKind('resources'), failures }
  const templates: Lookup = { ...resources, kind: listKind('templates') }
  const candidates = deps.backends.entries.filter((entry) => isCandidate(entry, resources.kind))
  for (const entry of candidates) {
    const list = await fetchList(resources, entry, true)
    if (list && findItem(list, 'uri', uri)) return entry
  }
  for (const entry of candidates) {
    if (matchesTemplate(deps.catalog, await fetchList(templates, entry, true), uri)) return entry
  }
  const offering = deps.backends.offering('resources')
  if (offering.length === 1) return offering[0]
  failures.throwFirst()
  throw new GatewayError('MCP_GATEWAY_RESOURCE_UNKNOWN', uri, { data: { uri } })
}
