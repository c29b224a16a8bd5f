// Finds the backend that owns a tool or prompt name, a resource URI or a completion reference.
import { GatewayError } from '../errors.ts'
import { BackendError } from '../upstream/backend.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import type { BackendEntry, BackendSet } from './backend-set.ts'
import { findItem, type Catalog } from './catalog.ts'
import { listKind, type ListKind } from './list-kinds.ts'

export interface Target {
  entry: BackendEntry
  // The backend's own name for the item (namespace stripped).
  name: string
  item: JsonObject | undefined
}

async function lookup(catalog: Catalog, entry: BackendEntry, kind: ListKind, name: string): Promise<JsonObject | undefined> {
  const stale = await catalog.get(entry.backend, kind, { allowStale: true }).catch(() => undefined)
  const found = stale && findItem(stale, 'name', name)
  if (found || !stale) return found
  // CACHE-9: an unknown name is evidence of change: refetch once.
  catalog.invalidate(entry.backend.name, kind.id)
  const fresh = await catalog.get(entry.backend, kind).catch(() => undefined)
  return fresh && findItem(fresh, 'name', name)
}

export async function resolveName(backends: BackendSet, catalog: Catalog, kindId: 'tools' | 'prompts', gatewayName: string): Promise<Target> {
  const kind = listKind(kindId)
  let downBackend: string | undefined
  for (const { entry, name } of backends.candidates(gatewayName)) {
    if (!entry.backend.status().up) {
      downBackend ??= entry.backend.name
      continue
    }
    const item = await lookup(catalog, entry, kind, name)
    if (item) return { entry, name, item }
  }
  if (downBackend !== undefined) {
    throw new BackendError(downBackend, 'unreachable', 'backend is down')
  }
  throw new GatewayError(kindId === 'tools' ? 'MCP_GATEWAY_TOOL_UNKNOWN' : 'MCP_GATEWAY_PROMPT_UNKNOWN', gatewayName)
}

// Resource URIs are never rewritten: exact URI from resources/list, then templates, then the only
// backend that serves resources at all (G3). Nothing owns it → -32602 with data.uri (ERR-10).
export async function resolveUri(backends: BackendSet, catalog: Catalog, uri: string): Promise<BackendEntry> {
  const offering = backends.offering('resources')
  for (const entry of offering) {
    const list = await catalog.get(entry.backend, listKind('resources'), { allowStale: true }).catch(() => undefined)
    if (list && findItem(list, 'uri', uri)) return entry
  }
  for (const entry of offering) {
    const list = await catalog.get(entry.backend, listKind('templates'), { allowStale: true }).catch(() => undefined)
    if (list?.items.some((t) => typeof t.uriTemplate === 'string' && catalog.templates.matches(t.uriTemplate, uri))) return entry
  }
  if (offering.length === 1) return offering[0]
  throw new GatewayError('MCP_GATEWAY_RESOURCE_UNKNOWN', uri, { data: { uri } })
}
