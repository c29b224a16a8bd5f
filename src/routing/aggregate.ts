// Aggregated lists (CAP-5, FEAT-2, PAGE-*): backends in configured order, pages of `pageSize` items that
// span backends, sealed cursors, names namespaced, first backend wins a name collision, hints merged (CACHE-12).
import type { Logger } from '../observability/logger.ts'
import { createHash } from 'node:crypto'
import { GatewayError } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { mergeCacheHints, type CacheHints } from '../protocol/result.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import type { Catalog, CachedList } from './catalog.ts'
import type { ListKind } from './list-kinds.ts'
import type { Sealer } from './seal.ts'
import type { ListView } from './access.ts'
import { ANONYMOUS } from './mrtr.ts'

export interface AggregateDeps {
  backends: BackendSet
  catalog: Catalog
  sealer: Sealer
  logger: Logger
  // HDR-11: tools whose x-mcp-header annotations are invalid are dropped.
  acceptTool?: (tool: JsonObject, backend: string) => boolean
  // Items per gateway page; a listing spans backends (PAGE-1: the server picks the size).
  pageSize: number
  // The caller's view (binding, what the policy lets them see); absent: anonymous, everything.
  view?: ListView
  // The merged lists of the current catalog generation (absent: merged on every call), and whose
  // merged list this call's is ('' when it is the same for every caller).
  merged?: MergedLists
  mergedKey?: string
}

// One merged list, valid while the catalog's lists it was merged from are the current ones: the
// generation is the identity of those lists (a refetch or an invalidation replaces them). Paging a
// large list then merges and hashes it once, not once per page.
interface MergedList {
  sources: ReadonlyArray<CachedList | undefined>
  items: JsonObject[]
  digest?: string
}

// Merged lists kept, over every kind and caller (each as large as the lists it merges); the
// oldest go first.
const MAX_MERGED_LISTS = 16

export class MergedLists {
  readonly #lists = new Map<string, MergedList>()

  // The merged items of these contributions, merged only when one of their lists changed.
  get(deps: AggregateDeps, kind: ListKind, contributions: Contribution[]): MergedList {
    const key = `${kind.id}\u0000${deps.mergedKey ?? ''}`
    const sources = contributions.map((c) => c.list)
    const cached = this.#lists.get(key)
    if (cached && cached.sources.length === sources.length && cached.sources.every((list, i) => list === sources[i])) return cached
    const merged = { sources, items: mergeItems(deps, kind, contributions) }
    this.#lists.delete(key)
    if (this.#lists.size >= MAX_MERGED_LISTS) this.#lists.delete(this.#lists.keys().next().value as string)
    this.#lists.set(key, merged)
    return merged
  }
}

const EMPTY_HINTS: CacheHints = { ttlMs: 0, cacheScope: 'private' }

// One backend's part of a listing: its list, or none when it does not offer the kind or failed.
interface Contribution {
  entry: BackendEntry
  list?: CachedList
}

async function fetchLists(deps: AggregateDeps, kind: ListKind): Promise<Contribution[]> {
  const offering = new Set(deps.backends.offering(kind.capability))
  // Indexed by configured position, so cursors stay meaningful when a backend comes or goes.
  return Promise.all(deps.backends.entries.map(async (entry) => {
    if (!offering.has(entry)) return { entry }
    try {
      return { entry, list: await deps.catalog.get(entry.backend, kind) }
    } catch (err) {
      // A backend that fails drops out of the list; it never breaks the others.
      deps.logger.warn({ backend: entry.backend.name, err }, `${kind.method} failed; backend left out`)
      return { entry }
    }
  }))
}

// Every contribution's items in order, names namespaced; the first backend to produce a name (or
// URI) keeps it.
function mergeItems(deps: AggregateDeps, kind: ListKind, contributions: Contribution[]): JsonObject[] {
  const seen = new Set<string>()
  const out: JsonObject[] = []
  for (const { entry, list } of contributions) {
    for (const item of list?.items ?? []) {
      const key = kind.named ? deps.backends.gatewayName(entry, String(item.name)) : String(item.uri ?? item.uriTemplate)
      if (kind.id === 'tools' && deps.acceptTool && !deps.acceptTool(item, entry.backend.name)) continue
      // CAP-4: only what this caller may use.
      if (deps.view?.visible && !deps.view.visible(key)) continue
      if (seen.has(key)) {
        deps.logger.warn({ backend: entry.backend.name, name: key }, `${kind.id} name collision; first backend wins`)
        continue
      }
      seen.add(key)
      out.push(kind.named ? { ...item, name: key } : item)
    }
  }
  return out
}

// Hints merged over every contributing backend so all pages of a listing agree (PAGE-5).
function mergeHints(deps: AggregateDeps, contributions: Contribution[]): CacheHints {
  const hints = mergeCacheHints(contributions.flatMap((c) => (c.list ? [{ ...c.list.hints, ttlMs: deps.catalog.remainingTtl(c.list) }] : [])), EMPTY_HINTS)
  // A list that varies by caller is private (CAP-4, CACHE-12).
  return deps.view?.visible ? { ...hints, cacheScope: 'private' } : hints
}

// PAGE-6: a cursor is bound to the list it paged: a digest of the merged names in order. A list
// that changed between pages makes its cursors invalid (-32602), so a client restarts the listing
// rather than silently skipping or repeating items (CACHE-10).
export function listDigest(kind: ListKind, items: JsonObject[]): string {
  const hash = createHash('sha256')
  for (const item of items) hash.update(String(kind.named ? item.name : item.uri ?? item.uriTemplate)).update('\n')
  return hash.digest('base64url').slice(0, 16)
}

// PAGE-4: cursor = sealed {list kind, offset, list digest, caller}; anything else (another
// caller's cursor included, MRTR-9) is -32602.
function openCursor(deps: AggregateDeps, kind: ListKind, cursor: unknown): { offset: number; digest?: unknown } {
  if (cursor === undefined) return { offset: 0 }
  const payload = deps.sealer.open(cursor)
  if (payload?.k !== kind.id || !Number.isInteger(payload.o) || (payload.o as number) < 0) throw new GatewayError('MCP_GATEWAY_CURSOR_INVALID')
  if (payload.p !== (deps.view?.binding ?? ANONYMOUS)) throw new GatewayError('MCP_GATEWAY_CURSOR_INVALID', 'the cursor belongs to another caller')
  return { offset: payload.o as number, digest: payload.d }
}

export async function listAggregated(deps: AggregateDeps, kind: ListKind, params: JsonObject): Promise<JsonObject> {
  const cursor = openCursor(deps, kind, params.cursor)
  const contributions = await fetchLists(deps, kind)
  // The whole merged list in stable order (backends in configured order, first name wins).
  const merged = deps.merged?.get(deps, kind, contributions) ?? { sources: [], items: mergeItems(deps, kind, contributions) }
  const hints = mergeHints(deps, contributions)
  const paged = params.cursor !== undefined || merged.items.length > deps.pageSize
  const digest = paged ? (merged.digest ??= listDigest(kind, merged.items)) : undefined
  if (cursor.digest !== undefined && cursor.digest !== digest) throw new GatewayError('MCP_GATEWAY_CURSOR_INVALID', 'the list changed; start again without a cursor')
  const end = cursor.offset + deps.pageSize
  const result: JsonObject = { [kind.key]: merged.items.slice(cursor.offset, end), ttlMs: hints.ttlMs, cacheScope: hints.cacheScope }
  if (end < merged.items.length) result.nextCursor = deps.sealer.seal({ k: kind.id, o: end, d: digest, p: deps.view?.binding ?? ANONYMOUS })
  return result
}
