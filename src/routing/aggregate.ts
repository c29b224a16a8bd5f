// Aggregated lists (G3, PAGE-*): backends in configured order, one gateway page per backend,
// sealed cursors, names namespaced, first backend wins a name collision, hints merged (CACHE-12).
import type { Logger } from '../observability/logger.ts'
import { GatewayError } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { mergeCacheHints, type CacheHints } from '../protocol/result.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import type { Catalog, CachedList } from './catalog.ts'
import type { ListKind } from './list-kinds.ts'
import type { Sealer } from './seal.ts'

export interface AggregateDeps {
  backends: BackendSet
  catalog: Catalog
  sealer: Sealer
  logger: Logger
  // HDR-11: tools whose x-mcp-header annotations are invalid are dropped.
  acceptTool?: (tool: JsonObject, backend: string) => boolean
}

const EMPTY_HINTS: CacheHints = { ttlMs: 0, cacheScope: 'private' }

interface Page {
  items: JsonObject[]
  hints: CacheHints
  nextIndex: number | undefined
}

async function fetchLists(deps: AggregateDeps, kind: ListKind): Promise<Array<{ entry: BackendEntry; list?: CachedList }>> {
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

function mapItems(deps: AggregateDeps, kind: ListKind, entry: BackendEntry, items: JsonObject[], seen: Set<string>): JsonObject[] {
  const out: JsonObject[] = []
  for (const item of items) {
    const key = kind.named ? deps.backends.gatewayName(entry, String(item.name)) : String(item.uri ?? item.uriTemplate)
    if (kind.id === 'tools' && deps.acceptTool && !deps.acceptTool(item, entry.backend.name)) continue
    if (seen.has(key)) {
      deps.logger.warn({ backend: entry.backend.name, name: key }, `${kind.id} name collision; first backend wins`)
      continue
    }
    seen.add(key)
    out.push(kind.named ? { ...item, name: key } : item)
  }
  return out
}

function buildPage(deps: AggregateDeps, kind: ListKind, lists: Array<{ entry: BackendEntry; list?: CachedList }>, start: number): Page {
  const hints = mergeCacheHints(lists.flatMap((l) => (l.list ? [{ ...l.list.hints, ttlMs: deps.catalog.remainingTtl(l.list) }] : [])), EMPTY_HINTS)
  const seen = new Set<string>()
  for (let i = 0; i < lists.length; i++) {
    const { entry, list } = lists[i]
    const items = mapItems(deps, kind, entry, list?.items ?? [], seen)
    if (i < start || items.length === 0) continue
    return { items, hints, nextIndex: i + 1 < lists.length ? i + 1 : undefined }
  }
  return { items: [], hints, nextIndex: undefined }
}

// PAGE-4, PAGE-6: cursor = sealed {list kind, backend index}; anything else is -32602.
function openCursor(deps: AggregateDeps, kind: ListKind, cursor: unknown): number {
  if (cursor === undefined) return 0
  const payload = deps.sealer.open(cursor)
  if (payload?.k !== kind.id || typeof payload.i !== 'number') throw new GatewayError('MCP_GATEWAY_CURSOR_INVALID')
  return payload.i
}

export async function listAggregated(deps: AggregateDeps, kind: ListKind, params: JsonObject): Promise<JsonObject> {
  const start = openCursor(deps, kind, params.cursor)
  const lists = await fetchLists(deps, kind)
  const page = buildPage(deps, kind, lists, start)
  const result: JsonObject = { [kind.key]: page.items, ttlMs: page.hints.ttlMs, cacheScope: page.hints.cacheScope }
  if (page.nextIndex !== undefined) result.nextCursor = deps.sealer.seal({ k: kind.id, i: page.nextIndex })
  return result
}
